package io.floe.agent.group;

import java.util.Map;
import java.util.Objects;

/**
 * A SyncGroup: every member asks for its assignment; the leader's request carries all of them.
 *
 * @param groupId the group
 * @param memberId the member
 * @param groupInstanceId the static member's instance id, or null
 * @param generationId the generation the member joined
 * @param protocolType the protocol type the member expects, or null when it does not say (before v5)
 * @param protocolName the protocol the member expects, or null when it does not say
 * @param assignments the leader's assignment per member id; empty from followers
 */
public record SyncRequest(
        String groupId,
        String memberId,
        String groupInstanceId,
        int generationId,
        String protocolType,
        String protocolName,
        Map<String, byte[]> assignments) {

    public SyncRequest {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
        assignments = Map.copyOf(assignments);
    }
}
