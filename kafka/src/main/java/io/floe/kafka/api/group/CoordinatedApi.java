package io.floe.kafka.api.group;

import io.floe.agent.cluster.Cluster;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.codec.ErrorResponses;
import io.floe.kafka.error.KafkaErrors;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * A single-group API that only the group's coordinator may answer: group state lives in the
 * coordinating agent's memory, so a request that reaches another agent (the client's coordinator
 * lookup is stale after membership changed) is answered NOT_COORDINATOR, and the client looks the
 * coordinator up again. Committed offsets live in the shared store, so they survive the move.
 *
 * <p>A retriable failure of that store (the database restarting, a connection cut) is answered
 * COORDINATOR_NOT_AVAILABLE, as Kafka's coordinator answers when it cannot write its offsets log:
 * clients look the coordinator up again and retry. The KAFKA_STORAGE_ERROR other APIs answer is no
 * retriable error to the group clients: the classic consumer's commitSync throws "Unexpected error
 * in commit", a non-retriable KafkaException (seen in FaultRunIT on a PostgreSQL restart).
 */
final class CoordinatedApi<Q extends ApiMessage, R extends ApiMessage> implements KafkaApi<Q, R> {

    private final KafkaApi<Q, R> api;
    private final Function<Q, String> groupId;
    private final Cluster cluster;

    CoordinatedApi(KafkaApi<Q, R> api, Function<Q, String> groupId, Cluster cluster) {
        this.api = api;
        this.groupId = groupId;
        this.cluster = cluster;
    }

    @Override
    public CompletionStage<R> handle(RequestContext context, Q request) {
        String group = groupId.apply(request);
        if (group == null || group.isEmpty() || cluster.isCoordinatorOf(group)) {
            CompletionStage<R> answered;
            try {
                answered = api.handle(context, request);
            } catch (RuntimeException e) {
                // A blocking API runs on the blocking executor already, so its failures are thrown, not staged.
                answered = CompletableFuture.failedFuture(e);
            }
            return answered.exceptionallyCompose(failure -> {
                if (KafkaErrors.unwrap(failure) instanceof MetadataStoreException store && store.retriable()) {
                    return answer(
                            context,
                            request,
                            new CoordinatorNotAvailableException("the coordinator of group " + group
                                    + " cannot reach its metadata store: " + store.getMessage()));
                }
                return CompletableFuture.failedFuture(failure);
            });
        }
        return answer(
                context,
                request,
                new NotCoordinatorException("agent " + cluster.self().nodeId()
                        + " does not coordinate group " + group + "; its coordinator is node "
                        + cluster.coordinatorOf(group).nodeId()));
    }

    /** {@code request} answered with {@code error}, where the API's clients look for it. */
    @SuppressWarnings("unchecked")
    private CompletionStage<R> answer(RequestContext context, Q request, ApiException error) {
        return ErrorResponses.of(context.apiKey(), context.apiVersion(), request, error)
                .map(response -> CompletableFuture.completedFuture((R) response))
                .orElseGet(() -> CompletableFuture.failedFuture(error));
    }

    @Override
    public boolean expectsResponse(Q request) {
        return api.expectsResponse(request);
    }

    @Override
    public Map<Errors, Integer> errorCounts(R response) {
        return api.errorCounts(response);
    }
}
