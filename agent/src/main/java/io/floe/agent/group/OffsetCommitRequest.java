package io.floe.agent.group;

import io.floe.core.log.TopicPartition;
import java.util.Map;
import java.util.Objects;

/**
 * An OffsetCommit. Members of an active group send their generation; simple consumers and
 * administrators send generation -1 and an empty member id, which the coordinator accepts only
 * while the group has no members.
 *
 * @param groupId the group
 * @param memberId the committing member, or empty
 * @param groupInstanceId the static member's instance id, or null
 * @param generationId the member's generation, or a negative value for a commit from outside the group
 * @param offsets the offsets to store
 */
public record OffsetCommitRequest(
        String groupId,
        String memberId,
        String groupInstanceId,
        int generationId,
        Map<TopicPartition, NewOffset> offsets) {

    public OffsetCommitRequest {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
        offsets = Map.copyOf(offsets);
    }

    /**
     * One offset to commit.
     *
     * @param offset the next offset to consume
     * @param leaderEpoch the leader epoch of the last consumed record, or -1
     * @param metadata the client's string; null is stored as empty
     */
    public record NewOffset(long offset, int leaderEpoch, String metadata) {}
}
