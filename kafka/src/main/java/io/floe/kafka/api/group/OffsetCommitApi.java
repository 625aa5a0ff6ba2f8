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
import java.util.concurrent.Executor;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetCommitResponse;

/**
 * OffsetCommit (v2-10). Topics are checked here, as Kafka's broker does before its coordinator sees
 * them: an unknown name is UNKNOWN_TOPIC_OR_PARTITION, an unknown id (v10 names topics by id)
 * UNKNOWN_TOPIC_ID. A group-wide refusal applies to every partition; before v9 an unknown group
 * with a generation is ILLEGAL_GENERATION, as Kafka keeps it for old clients. The per-commit
 * retention time of v2-4 is ignored (Kafka turns it into a per-offset expiry): Floe applies
 * offsets.retention.minutes to every offset. Runs on the blocking executor.
 */
final class OffsetCommitApi implements KafkaApi<OffsetCommitRequestData, OffsetCommitResponseData> {

    private static final short STATIC_MEMBERSHIP_VERSION = 7;
    private static final short GROUP_ID_NOT_FOUND_VERSION = 9;

    private final GroupCoordinator groups;
    private final GroupTopics topics;
    private final Executor blocking;

    OffsetCommitApi(GroupCoordinator groups, GroupTopics topics, Executor blocking) {
        this.groups = groups;
        this.topics = topics;
        this.blocking = blocking;
    }

    @Override
    public ApiKeys key() {
        return ApiKeys.OFFSET_COMMIT;
    }

    @Override
    public short minVersion() {
        return 2;
    }

    @Override
    public short maxVersion() {
        return 10;
    }

    @Override
    public CompletionStage<OffsetCommitResponseData> handle(RequestContext context, OffsetCommitRequestData request) {
        short version = context.apiVersion();
        return CompletableFuture.supplyAsync(() -> respond(request, version), blocking);
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
                response.addPartitions(requested.topicId(), requested.name(), requested.partitions(),
                        OffsetCommitRequestPartition::partitionIndex, error);
                continue;
            }
            for (OffsetCommitRequestPartition partition : requested.partitions()) {
                if (partition.partitionIndex() < 0) {
                    response.addPartition(requested.topicId(), requested.name(), partition.partitionIndex(),
                            Errors.UNKNOWN_TOPIC_OR_PARTITION);
                    continue;
                }
                TopicPartition key = new TopicPartition(topic.get().name(), partition.partitionIndex());
                offsets.put(key, new OffsetCommitRequest.NewOffset(partition.committedOffset(),
                        partition.committedLeaderEpoch(), partition.committedMetadata()));
                ids.put(key, GroupTopics.idOf(topic.get()));
            }
        }
        if (!offsets.isEmpty()) {
            OffsetCommitResult result = groups.commitOffsets(new OffsetCommitRequest(request.groupId(),
                    request.memberId(), version >= STATIC_MEMBERSHIP_VERSION ? request.groupInstanceId() : null,
                    request.generationIdOrMemberEpoch(), offsets));
            Errors groupError = groupError(result.error(), version);
            offsets.keySet().forEach(partition -> response.addPartition(ids.get(partition), partition.topic(),
                    partition.partition(), groupError != Errors.NONE ? groupError
                            : GroupErrorCodes.of(result.partitions().getOrDefault(partition, GroupError.NONE))));
        }
        return response.build().data().setThrottleTimeMs(0);
    }

    private static Errors groupError(GroupError error, short version) {
        if (error == GroupError.GROUP_ID_NOT_FOUND && version < GROUP_ID_NOT_FOUND_VERSION) {
            return Errors.ILLEGAL_GENERATION;
        }
        return GroupErrorCodes.of(error);
    }

    @Override
    public Map<Errors, Integer> errorCounts(OffsetCommitResponseData response) {
        return new OffsetCommitResponse(response).errorCounts();
    }
}
