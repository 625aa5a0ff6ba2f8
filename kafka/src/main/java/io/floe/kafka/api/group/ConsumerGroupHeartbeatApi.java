package io.floe.kafka.api.group;

import io.floe.agent.group.ConsumerHeartbeat;
import io.floe.agent.group.ConsumerHeartbeatResult;
import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupError;
import io.floe.agent.group.TopicCatalog;
import io.floe.agent.group.consumer.Assignment;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupHeartbeat (v0-1), the consumer protocol of KIP-848: joins, heartbeats and leaves
 * with server-side assignment. v1 adds the subscription regex and requires client-generated member
 * ids; in v0 a join without one gets an id from the coordinator. Partitions travel by topic id. Runs
 * on the blocking executor: the coordinator reads subscribed topics, which may miss the topic cache.
 */
final class ConsumerGroupHeartbeatApi
        implements KafkaApi<ConsumerGroupHeartbeatRequestData, ConsumerGroupHeartbeatResponseData> {

    private static final short CLIENT_MEMBER_ID_VERSION = 1;

    private final GroupCoordinator groups;
    private final TopicCatalog topics;

    ConsumerGroupHeartbeatApi(GroupCoordinator groups, TopicCatalog topics) {
        this.groups = groups;
        this.topics = topics;
    }

    @Override
    public CompletionStage<ConsumerGroupHeartbeatResponseData> handle(
            RequestContext context, ConsumerGroupHeartbeatRequestData request) {
        ConsumerHeartbeat heartbeat = new ConsumerHeartbeat(
                request.groupId(),
                request.memberId(),
                request.memberEpoch(),
                request.instanceId(),
                request.rackId(),
                request.rebalanceTimeoutMs(),
                request.subscribedTopicNames(),
                request.subscribedTopicRegex(),
                request.serverAssignor(),
                request.topicPartitions() == null ? null : fromWire(request.topicPartitions()),
                context.clientId() == null ? "" : context.clientId(),
                JoinGroupApi.clientHost(context.peer()),
                context.apiVersion() >= CLIENT_MEMBER_ID_VERSION);
        return CompletableFuture.completedFuture(respond(heartbeat));
    }

    private ConsumerGroupHeartbeatResponseData respond(ConsumerHeartbeat heartbeat) {
        ConsumerHeartbeatResult result;
        try {
            result = groups.consumerHeartbeat(heartbeat, topics);
        } catch (RuntimeException e) {
            Errors error = KafkaErrors.errorOf(e);
            return new ConsumerGroupHeartbeatResponseData()
                    .setThrottleTimeMs(0)
                    .setErrorCode(error.code())
                    .setErrorMessage(e.getMessage());
        }
        ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(GroupErrorCodes.code(result.error()));
        if (result.error() != GroupError.NONE) {
            return response.setErrorMessage(result.errorMessage());
        }
        response.setMemberId(result.memberId())
                .setMemberEpoch(result.memberEpoch())
                .setHeartbeatIntervalMs(result.heartbeatIntervalMs());
        if (result.assignment() != null) {
            response.setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment()
                    .setTopicPartitions(toWire(result.assignment())));
        }
        return response;
    }

    private static Assignment fromWire(List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned) {
        Map<UUID, Set<Integer>> partitions = new HashMap<>();
        owned.forEach(topic -> partitions
                .computeIfAbsent(GroupTopics.uuidOf(topic.topicId()), id -> new TreeSet<>())
                .addAll(topic.partitions()));
        return new Assignment(partitions);
    }

    private static List<ConsumerGroupHeartbeatResponseData.TopicPartitions> toWire(Assignment assignment) {
        List<ConsumerGroupHeartbeatResponseData.TopicPartitions> topics = new ArrayList<>();
        assignment
                .partitions()
                .forEach((topic, partitions) -> topics.add(new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                        .setTopicId(GroupTopics.idOf(topic))
                        .setPartitions(new ArrayList<>(partitions))));
        return topics;
    }

    @Override
    public Map<Errors, Integer> errorCounts(ConsumerGroupHeartbeatResponseData response) {
        return Map.of(Errors.forCode(response.errorCode()), 1);
    }
}
