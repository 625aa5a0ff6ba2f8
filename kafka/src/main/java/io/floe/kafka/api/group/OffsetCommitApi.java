package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupError;
import io.floe.agent.group.OffsetCommitRequest;
import io.floe.agent.group.OffsetCommitResult;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.Topic;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetCommitResponse;

/**
 * OffsetCommit (v2-10). Topics are checked here, as Kafka's broker does before its coordinator sees
 * them: an unknown name is UNKNOWN_TOPIC_OR_PARTITION, an unknown id (v10 names topics by id)
 * UNKNOWN_TOPIC_ID. A group-wide refusal applies to every partition; a commit with a generation to
 * a group the coordinator does not know is ILLEGAL_GENERATION before v9, as in Kafka, and
 * UNKNOWN_MEMBER_ID from v9 (see {@link #groupError}). The per-commit
 * retention time of v2-4 is ignored (Kafka turns it into a per-offset expiry): Floe applies
 * offsets.retention.minutes to every offset. Runs on the blocking executor.
 */
final class OffsetCommitApi implements KafkaApi<OffsetCommitRequestData, OffsetCommitResponseData> {

    private static final short STATIC_MEMBERSHIP_VERSION = 7;
    /** From this version Kafka answers GROUP_ID_NOT_FOUND, not ILLEGAL_GENERATION, to commits into unknown groups. */
    private static final short GROUP_ID_NOT_FOUND_VERSION = 9;

    private final GroupCoordinator groups;
    private final GroupTopics topics;

    OffsetCommitApi(GroupCoordinator groups, GroupTopics topics) {
        this.groups = groups;
        this.topics = topics;
    }

    @Override
    public CompletionStage<OffsetCommitResponseData> handle(RequestContext context, OffsetCommitRequestData request) {
        return CompletableFuture.completedFuture(respond(request, context.apiVersion()));
    }

    private OffsetCommitResponseData respond(OffsetCommitRequestData request, short version) {
        boolean byId = OffsetCommitResponse.useTopicIds(version);
        OffsetCommitResponse.Builder response = OffsetCommitResponse.newBuilder(byId);
        Map<TopicPartition, OffsetCommitRequest.NewOffset> offsets = new HashMap<>();
        Map<TopicPartition, Uuid> ids = new HashMap<>();
        for (OffsetCommitRequestTopic requested : request.topics()) {
            Optional<Topic> topic = byId ? topics.byId(requested.topicId()) : topics.byName(requested.name());
            if (topic.isEmpty()) {
                Errors error = byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                response.addPartitions(
                        requested.topicId(),
                        requested.name(),
                        requested.partitions(),
                        OffsetCommitRequestPartition::partitionIndex,
                        error);
                continue;
            }
            for (OffsetCommitRequestPartition partition : requested.partitions()) {
                if (partition.partitionIndex() < 0) {
                    response.addPartition(
                            requested.topicId(),
                            requested.name(),
                            partition.partitionIndex(),
                            Errors.UNKNOWN_TOPIC_OR_PARTITION);
                    continue;
                }
                TopicPartition key = new TopicPartition(topic.get().name(), partition.partitionIndex());
                offsets.put(
                        key,
                        new OffsetCommitRequest.NewOffset(
                                partition.committedOffset(),
                                partition.committedLeaderEpoch(),
                                partition.committedMetadata()));
                ids.put(key, GroupTopics.idOf(topic.get()));
            }
        }
        if (!offsets.isEmpty()) {
            OffsetCommitResult result = groups.commitOffsets(new OffsetCommitRequest(
                    request.groupId(),
                    request.memberId(),
                    version >= STATIC_MEMBERSHIP_VERSION ? request.groupInstanceId() : null,
                    request.generationIdOrMemberEpoch(),
                    offsets));
            Errors groupError = groupError(result.error(), version);
            offsets.keySet()
                    .forEach(partition -> response.addPartition(
                            ids.get(partition),
                            partition.topic(),
                            partition.partition(),
                            groupError != Errors.NONE
                                    ? groupError
                                    : GroupErrorCodes.of(
                                            result.partitions().getOrDefault(partition, GroupError.NONE))));
        }
        return response.build().data().setThrottleTimeMs(0);
    }

    /**
     * The wire error of a group-wide refusal. GROUP_ID_NOT_FOUND (a commit with a generation to a group
     * the coordinator does not have) differs from Kafka's answer from v9 on: Kafka sends
     * GROUP_ID_NOT_FOUND, which neither of kafka-clients' consumers handles in a commit response (the
     * classic consumer's commitSync throws "Unexpected error in commit", a non-retriable
     * KafkaException). In Kafka that case is rare, a group deleted under its members; in Floe it
     * follows every move of a group to another agent (its coordinator left, or restarted), because
     * group membership lives in the coordinator's memory. UNKNOWN_MEMBER_ID says what happened, and
     * both consumers handle it as they handle a commit overtaken by a rebalance: CommitFailedException,
     * then they rejoin.
     */
    private static Errors groupError(GroupError error, short version) {
        if (error == GroupError.GROUP_ID_NOT_FOUND) {
            return version < GROUP_ID_NOT_FOUND_VERSION ? Errors.ILLEGAL_GENERATION : Errors.UNKNOWN_MEMBER_ID;
        }
        return GroupErrorCodes.of(error);
    }

    @Override
    public Map<Errors, Integer> errorCounts(OffsetCommitResponseData response) {
        return new OffsetCommitResponse(response).errorCounts();
    }
}
