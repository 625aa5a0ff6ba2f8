package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupError;
import io.floe.agent.group.OffsetDeleteResult;
import io.floe.core.log.TopicPartition;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetDelete (v0): removes committed offsets of partitions the group does not consume. Unknown
 * topics are UNKNOWN_TOPIC_OR_PARTITION; a consumer group's subscribed topics are
 * GROUP_SUBSCRIBED_TO_TOPIC, read from its members' consumer-protocol metadata here, where Kafka's
 * formats are known. Runs on the blocking executor.
 */
final class OffsetDeleteApi implements KafkaApi<OffsetDeleteRequestData, OffsetDeleteResponseData> {

    private final GroupCoordinator groups;
    private final GroupTopics topics;

    OffsetDeleteApi(GroupCoordinator groups, GroupTopics topics) {
        this.groups = groups;
        this.topics = topics;
    }

    @Override
    public CompletionStage<OffsetDeleteResponseData> handle(RequestContext context, OffsetDeleteRequestData request) {
        return CompletableFuture.completedFuture(respond(request));
    }

    private OffsetDeleteResponseData respond(OffsetDeleteRequestData request) {
        Map<String, Map<Integer, Errors>> outcomes = new LinkedHashMap<>();
        List<TopicPartition> known = new ArrayList<>();
        for (OffsetDeleteRequestTopic topic : request.topics()) {
            boolean exists = topics.byName(topic.name()).isPresent();
            for (OffsetDeleteRequestPartition partition : topic.partitions()) {
                if (!exists || partition.partitionIndex() < 0) {
                    outcomes.computeIfAbsent(topic.name(), name -> new LinkedHashMap<>())
                            .put(partition.partitionIndex(), Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    known.add(new TopicPartition(topic.name(), partition.partitionIndex()));
                }
            }
        }
        OffsetDeleteResult result = groups.deleteOffsets(request.groupId(), known, OffsetDeleteApi::subscribedTopics);
        if (result.error() != GroupError.NONE) {
            return new OffsetDeleteResponseData()
                    .setThrottleTimeMs(0)
                    .setErrorCode(GroupErrorCodes.code(result.error()));
        }
        result.partitions()
                .forEach(
                        (partition, error) -> outcomes.computeIfAbsent(partition.topic(), name -> new LinkedHashMap<>())
                                .put(partition.partition(), GroupErrorCodes.of(error)));
        return new OffsetDeleteResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(Errors.NONE.code())
                .setTopics(toWire(outcomes));
    }

    /** The topics a consumer subscribes to, from its JoinGroup metadata; throws for other formats. */
    static Set<String> subscribedTopics(byte[] metadata) {
        return new HashSet<>(ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(metadata))
                .topics());
    }

    private static OffsetDeleteResponseTopicCollection toWire(Map<String, Map<Integer, Errors>> outcomes) {
        OffsetDeleteResponseTopicCollection topics = new OffsetDeleteResponseTopicCollection();
        outcomes.forEach((name, byPartition) -> {
            OffsetDeleteResponsePartitionCollection partitions = new OffsetDeleteResponsePartitionCollection();
            byPartition.forEach((partition, error) -> partitions.add(new OffsetDeleteResponsePartition()
                    .setPartitionIndex(partition)
                    .setErrorCode(error.code())));
            topics.add(new OffsetDeleteResponseTopic().setName(name).setPartitions(partitions));
        });
        return topics;
    }

    @Override
    public Map<Errors, Integer> errorCounts(OffsetDeleteResponseData response) {
        Map<Errors, Integer> counts = new HashMap<>();
        counts.put(Errors.forCode(response.errorCode()), 1);
        response.topics()
                .forEach(t ->
                        t.partitions().forEach(p -> counts.merge(Errors.forCode(p.errorCode()), 1, Integer::sum)));
        return counts;
    }
}
