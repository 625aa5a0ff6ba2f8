package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.agent.cluster.AgentNode;
import io.floe.agent.cluster.Cluster;
import io.floe.agent.topic.Topics;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.Topic;
import io.floe.kafka.error.KafkaErrors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBrokerCollection;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopicCollection;
import org.apache.kafka.common.protocol.Errors;

/**
 * Metadata (v0-13): the live agents as brokers, and each topic's partitions led by the agent the
 * cluster assigns, with replicas and ISR of just that agent and leader epoch 0. Topics are named or,
 * from v12, given by id; unknown named topics are auto-created when the client and the agent allow.
 * Runs on the blocking executor: listing topics reads the metadata store.
 */
final class MetadataApi implements KafkaApi<MetadataRequestData, MetadataResponseData> {

    private final Agent agent;

    MetadataApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public CompletionStage<MetadataResponseData> handle(RequestContext context, MetadataRequestData request) {
        return CompletableFuture.completedFuture(respond(context.apiVersion(), request));
    }

    @Override
    public Map<Errors, Integer> errorCounts(MetadataResponseData response) {
        Map<Errors, Integer> counts = new HashMap<>();
        counts.merge(Errors.forCode(response.errorCode()), 1, Integer::sum);
        response.topics().forEach(topic -> counts.merge(Errors.forCode(topic.errorCode()), 1, Integer::sum));
        return counts;
    }

    private MetadataResponseData respond(short version, MetadataRequestData request) {
        Cluster cluster = agent.cluster();
        MetadataResponseTopicCollection topics = new MetadataResponseTopicCollection();
        if (request.topics() == null || (version == 0 && request.topics().isEmpty())) {
            agent.topics().list().forEach(topic -> topics.add(describe(cluster, topic)));
        } else {
            boolean autoCreate = (version < 4 || request.allowAutoTopicCreation())
                    && agent.topics().autoCreateEnabled();
            for (MetadataRequestTopic requested : distinct(request.topics())) {
                // Clients asking by id send the id with an empty (v12+: possibly null) name.
                boolean byId = !Uuid.ZERO_UUID.equals(requested.topicId());
                topics.add(
                        byId
                                ? describeById(cluster, requested.topicId(), version)
                                : describeByName(cluster, requested.name(), autoCreate, version));
            }
        }
        return new MetadataResponseData()
                .setThrottleTimeMs(0)
                .setBrokers(brokers(cluster.liveAgents()))
                .setClusterId(cluster.clusterId())
                .setControllerId(cluster.controller().nodeId())
                .setTopics(topics);
    }

    private MetadataResponseTopic describeByName(Cluster cluster, String name, boolean autoCreate, short version) {
        Optional<String> invalid = Topics.validateName(name);
        if (invalid.isPresent()) {
            return error(name != null || version >= 12 ? name : "", Uuid.ZERO_UUID, Errors.INVALID_TOPIC_EXCEPTION);
        }
        try {
            Optional<Topic> topic = autoCreate
                    ? agent.topics().findOrAutoCreate(name)
                    : agent.topics().find(name);
            return topic.map(found -> describe(cluster, found))
                    .orElseGet(() -> error(name, Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        } catch (RuntimeException e) {
            return error(name, Uuid.ZERO_UUID, KafkaErrors.errorOf(e));
        }
    }

    private MetadataResponseTopic describeById(Cluster cluster, Uuid id, short version) {
        // Names are nullable in responses from v12; v10 and v11 clients should not ask by id at all.
        String unknownName = version >= 12 ? null : "";
        return agent.topics()
                .find(TopicIds.toFloe(id))
                .map(found -> describe(cluster, found))
                .orElseGet(() -> error(unknownName, id, Errors.UNKNOWN_TOPIC_ID));
    }

    private static MetadataResponseTopic describe(Cluster cluster, Topic topic) {
        List<MetadataResponsePartition> partitions = new ArrayList<>(topic.partitionCount());
        for (int partition = 0; partition < topic.partitionCount(); partition++) {
            int leader = cluster.leaderOf(new TopicPartition(topic.name(), partition))
                    .nodeId();
            partitions.add(new MetadataResponsePartition()
                    .setErrorCode(Errors.NONE.code())
                    .setPartitionIndex(partition)
                    .setLeaderId(leader)
                    .setLeaderEpoch(0)
                    .setReplicaNodes(List.of(leader))
                    .setIsrNodes(List.of(leader))
                    .setOfflineReplicas(List.of()));
        }
        return new MetadataResponseTopic()
                .setErrorCode(Errors.NONE.code())
                .setName(topic.name())
                .setTopicId(TopicIds.toKafka(topic.id()))
                .setIsInternal(false)
                .setPartitions(partitions);
    }

    private static MetadataResponseTopic error(String name, Uuid id, Errors error) {
        return new MetadataResponseTopic()
                .setErrorCode(error.code())
                .setName(name)
                .setTopicId(id)
                .setIsInternal(false)
                .setPartitions(List.of());
    }

    private static MetadataResponseBrokerCollection brokers(List<AgentNode> agents) {
        MetadataResponseBrokerCollection brokers = new MetadataResponseBrokerCollection(agents.size());
        agents.forEach(node -> brokers.add(new MetadataResponseBroker()
                .setNodeId(node.nodeId())
                .setHost(node.host())
                .setPort(node.port())
                .setRack(null)));
        return brokers;
    }

    /** The requested topics without repeats (Kafka answers each topic once). */
    private static Set<MetadataRequestTopic> distinct(List<MetadataRequestTopic> requested) {
        return new LinkedHashSet<>(requested);
    }
}
