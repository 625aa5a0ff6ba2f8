package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.kafka.error.KafkaErrors;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsResponse;

/**
 * CreateTopics (v2-7). Partition count -1 takes the agent's default; any replication factor is
 * accepted and reported as 1 (objects are durable, there are no replicas); manual replica assignments
 * are refused. From v5 the response carries the topic's configs and partition count, from v7 its id.
 */
final class CreateTopicsApi implements KafkaApi<CreateTopicsRequestData, CreateTopicsResponseData> {

    private static final int DEFAULT_PARTITIONS = -1;
    private static final short DEFAULT_REPLICATION_FACTOR = -1;

    private final Agent agent;

    CreateTopicsApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(CreateTopicsResponseData response) {
        return new CreateTopicsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<CreateTopicsResponseData> handle(RequestContext context, CreateTopicsRequestData request) {
        return CompletableFuture.completedFuture(respond(request));
    }

    private CreateTopicsResponseData respond(CreateTopicsRequestData request) {
        CreateTopicsResponseData response = new CreateTopicsResponseData().setThrottleTimeMs(0);
        Set<String> duplicated = TopicNames.duplicated(
                request.topics().stream().map(topic -> topic.name()).toList());
        Set<String> answered = new HashSet<>();
        for (CreatableTopic topic : request.topics()) {
            if (!answered.add(topic.name())) {
                continue;
            }
            CreatableTopicResult result = duplicated.contains(topic.name())
                    ? failed(
                            topic.name(),
                            new InvalidRequestException(
                                    "Create topics request contains multiple " + "entries for topic " + topic.name()))
                    : create(topic, request.validateOnly());
            response.topics().add(result);
        }
        return response;
    }

    private CreatableTopicResult create(CreatableTopic request, boolean validateOnly) {
        try {
            Topic topic = agent.topics().create(newTopic(request), validateOnly);
            return new CreatableTopicResult()
                    .setName(topic.name())
                    .setTopicId(TopicIds.toKafka(topic.id()))
                    .setErrorCode(Errors.NONE.code())
                    .setNumPartitions(topic.partitionCount())
                    .setReplicationFactor((short) 1)
                    .setConfigs(ConfigMapping.creatableTopicConfigs(
                            agent.topics().configs().describe(topic)));
        } catch (RuntimeException e) {
            return failed(request.name(), KafkaErrors.toApiException(e));
        }
    }

    private NewTopic newTopic(CreatableTopic request) {
        int partitions = request.numPartitions();
        if (partitions == DEFAULT_PARTITIONS) {
            partitions = agent.config().defaultPartitions();
        } else if (partitions <= 0) {
            throw new InvalidPartitionsException("Number of partitions was set to an invalid non-positive value "
                    + partitions + "; use a positive number or -1 for the default");
        }
        short replication = request.replicationFactor();
        if (replication != DEFAULT_REPLICATION_FACTOR && replication <= 0) {
            throw new InvalidReplicationFactorException("Replication factor must be larger than 0, or -1 to use "
                    + "the default value, got " + replication);
        }
        if (!request.assignments().isEmpty()) {
            throw new InvalidReplicaAssignmentException("Floe places partitions itself; manual replica "
                    + "assignments are not supported (topic " + request.name() + ")");
        }
        Map<String, String> configs = new HashMap<>();
        for (CreatableTopicConfig config : request.configs()) {
            if (config.value() == null) {
                throw new InvalidConfigurationException("Null value not supported for topic config " + config.name());
            }
            configs.put(config.name(), config.value());
        }
        return new NewTopic(request.name(), partitions, configs);
    }

    private static CreatableTopicResult failed(String name, ApiException error) {
        return new CreatableTopicResult()
                .setName(name)
                .setErrorCode(Errors.forException(error).code())
                .setErrorMessage(error.getMessage())
                .setNumPartitions(-1)
                .setReplicationFactor((short) -1)
                .setConfigs(null);
    }
}
