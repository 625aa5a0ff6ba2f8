package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.kafka.error.KafkaErrors;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreatePartitionsResponse;

/** CreatePartitions (v0-3): raises partition counts; manual assignments are refused. */
final class CreatePartitionsApi implements KafkaApi<CreatePartitionsRequestData, CreatePartitionsResponseData> {

    private final Agent agent;

    CreatePartitionsApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(CreatePartitionsResponseData response) {
        return new CreatePartitionsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<CreatePartitionsResponseData> handle(
            RequestContext context, CreatePartitionsRequestData request) {
        return CompletableFuture.completedFuture(respond(request));
    }

    private CreatePartitionsResponseData respond(CreatePartitionsRequestData request) {
        CreatePartitionsResponseData response = new CreatePartitionsResponseData().setThrottleTimeMs(0);
        Set<String> duplicated = TopicNames.duplicated(
                request.topics().stream().map(topic -> topic.name()).toList());
        Set<String> answered = new HashSet<>();
        for (CreatePartitionsTopic topic : request.topics()) {
            if (answered.add(topic.name())) {
                response.results()
                        .add(
                                duplicated.contains(topic.name())
                                        ? failed(
                                                topic.name(),
                                                new InvalidRequestException(
                                                        "Duplicate topic in request: " + topic.name()))
                                        : increase(topic, request.validateOnly()));
            }
        }
        return response;
    }

    private CreatePartitionsTopicResult increase(CreatePartitionsTopic request, boolean validateOnly) {
        try {
            if (request.assignments() != null && !request.assignments().isEmpty()) {
                throw new InvalidReplicaAssignmentException("Floe places partitions itself; manual replica "
                        + "assignments are not supported (topic " + request.name() + ")");
            }
            Topic topic =
                    agent.topics().find(request.name()).orElseThrow(() -> new UnknownTopicException(request.name()));
            int current = topic.partitionCount();
            if (request.count() < current) {
                throw new InvalidPartitionsException("Topic currently has " + current
                        + " partitions, which is higher than the requested " + request.count() + ".");
            }
            if (request.count() == current) {
                throw new InvalidPartitionsException("Topic already has " + current + " partitions.");
            }
            if (!validateOnly) {
                agent.topics().createPartitions(request.name(), request.count());
            }
            return new CreatePartitionsTopicResult().setName(request.name()).setErrorCode(Errors.NONE.code());
        } catch (RuntimeException e) {
            return failed(request.name(), KafkaErrors.toApiException(e));
        }
    }

    private static CreatePartitionsTopicResult failed(String name, ApiException error) {
        return new CreatePartitionsTopicResult()
                .setName(name)
                .setErrorCode(Errors.forException(error).code())
                .setErrorMessage(error.getMessage());
    }
}
