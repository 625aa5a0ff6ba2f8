package io.floe.kafka.api;

import io.floe.agent.Agent;
import io.floe.core.topic.Topic;
import io.floe.kafka.error.KafkaErrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteTopicsResponse;

/** DeleteTopics (v1-6): by name, and from v6 by name or by topic id. */
final class DeleteTopicsApi implements KafkaApi<DeleteTopicsRequestData, DeleteTopicsResponseData> {

    private static final short FIRST_VERSION_WITH_TOPIC_IDS = 6;

    private final Agent agent;

    DeleteTopicsApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public Map<Errors, Integer> errorCounts(DeleteTopicsResponseData response) {
        return new DeleteTopicsResponse(response).errorCounts();
    }

    @Override
    public CompletionStage<DeleteTopicsResponseData> handle(RequestContext context, DeleteTopicsRequestData request) {
        List<DeleteTopicState> targets = new ArrayList<>();
        if (context.apiVersion() >= FIRST_VERSION_WITH_TOPIC_IDS) {
            targets.addAll(request.topics());
        } else {
            request.topicNames().forEach(name -> targets.add(new DeleteTopicState().setName(name)));
        }
        DeleteTopicsResponseData response = new DeleteTopicsResponseData().setThrottleTimeMs(0);
        targets.forEach(target -> response.responses().add(delete(target)));
        return CompletableFuture.completedFuture(response);
    }

    private DeletableTopicResult delete(DeleteTopicState target) {
        DeletableTopicResult result =
                new DeletableTopicResult().setName(target.name()).setTopicId(target.topicId());
        boolean byName = target.name() != null;
        boolean byId = !Uuid.ZERO_UUID.equals(target.topicId());
        try {
            if (byName == byId) {
                throw new InvalidRequestException(
                        "Give a topic's name or its id, not " + (byName ? "both" : "neither"));
            }
            String name = target.name();
            if (byId) {
                Optional<Topic> topic = agent.topics().find(TopicIds.toFloe(target.topicId()));
                name = topic.orElseThrow(() -> new UnknownTopicIdException("unknown topic id " + target.topicId()))
                        .name();
                result.setName(name);
            }
            agent.topics().delete(name);
            return result.setErrorCode(Errors.NONE.code());
        } catch (RuntimeException e) {
            ApiException error = KafkaErrors.toApiException(e);
            return result.setErrorCode(Errors.forException(error).code()).setErrorMessage(error.getMessage());
        }
    }
}
