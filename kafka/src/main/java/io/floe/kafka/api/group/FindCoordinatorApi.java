package io.floe.kafka.api.group;

import io.floe.agent.Agent;
import io.floe.agent.cluster.AgentNode;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/**
 * FindCoordinator (v0-6): one key up to v3, a batch of keys from v4. Group keys and transactional ids
 * map to the agent the cluster picks for them (any agent could serve a transactional id, whose state is
 * in the store: the mapping spreads the load). Floe has no share-group coordinator, so share keys get
 * COORDINATOR_NOT_AVAILABLE with a message saying why. Answers from memory, on the event loop.
 */
final class FindCoordinatorApi implements KafkaApi<FindCoordinatorRequestData, FindCoordinatorResponseData> {

    static final short BATCHED_VERSION = 4;

    private final Agent agent;

    FindCoordinatorApi(Agent agent) {
        this.agent = agent;
    }

    @Override
    public CompletionStage<FindCoordinatorResponseData> handle(
            RequestContext context, FindCoordinatorRequestData request) {
        short version = context.apiVersion();
        FindCoordinatorResponseData response = new FindCoordinatorResponseData().setThrottleTimeMs(0);
        if (version < BATCHED_VERSION) {
            Coordinator found = find(request.keyType(), request.key());
            response.setErrorCode(found.errorCode())
                    .setNodeId(found.nodeId())
                    .setHost(found.host())
                    .setPort(found.port());
            if (version >= 1) {
                response.setErrorMessage(found.errorMessage());
            }
        } else {
            List<Coordinator> coordinators =
                    new ArrayList<>(request.coordinatorKeys().size());
            request.coordinatorKeys().forEach(key -> coordinators.add(find(request.keyType(), key)));
            response.setCoordinators(coordinators);
        }
        return CompletableFuture.completedFuture(response);
    }

    private Coordinator find(byte keyType, String key) {
        Coordinator answer = new Coordinator().setKey(key);
        CoordinatorType type;
        try {
            type = CoordinatorType.forId(keyType);
        } catch (RuntimeException unknown) {
            return unavailable(answer, Errors.INVALID_REQUEST, "Unknown coordinator key type " + keyType);
        }
        return switch (type) {
            case GROUP -> found(answer, agent.cluster().coordinatorOf(key));
            case TRANSACTION ->
                key == null || key.isEmpty()
                        ? unavailable(answer, Errors.INVALID_REQUEST, "a transactional id is required")
                        : found(answer, agent.cluster().transactionCoordinatorOf(key));
            case SHARE ->
                unavailable(
                        answer,
                        Errors.COORDINATOR_NOT_AVAILABLE,
                        "Floe does not support share groups: no share coordinator for " + key);
        };
    }

    private static Coordinator found(Coordinator answer, AgentNode node) {
        return answer.setNodeId(node.nodeId())
                .setHost(node.host())
                .setPort(node.port())
                .setErrorCode(Errors.NONE.code())
                .setErrorMessage(null);
    }

    private static Coordinator unavailable(Coordinator answer, Errors error, String message) {
        return answer.setNodeId(-1)
                .setHost("")
                .setPort(-1)
                .setErrorCode(error.code())
                .setErrorMessage(message);
    }

    @Override
    public Map<Errors, Integer> errorCounts(FindCoordinatorResponseData response) {
        Map<Errors, Integer> counts = new HashMap<>();
        if (response.coordinators().isEmpty()) {
            counts.put(Errors.forCode(response.errorCode()), 1);
        }
        response.coordinators().forEach(c -> counts.merge(Errors.forCode(c.errorCode()), 1, Integer::sum));
        return counts;
    }
}
