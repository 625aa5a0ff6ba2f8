package io.floe.kafka.api;

import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * One Kafka API: its logic only. Its api key, the versions it serves and the thread it runs on are
 * declared where it is registered ({@link ApiRegistry.Builder}); the request dispatcher refuses
 * other versions and, for a blocking API, calls {@link #handle} on the blocking executor. An event
 * loop API is called on the connection's event loop in request order and must not block it: work
 * that waits returns a stage completed elsewhere. An exception thrown or a stage failed becomes the
 * API's error response.
 *
 * @param <Q> the request message
 * @param <R> the response message
 */
public interface KafkaApi<Q extends ApiMessage, R extends ApiMessage> {

    /** Called only with a request at a version the registration declares. */
    CompletionStage<R> handle(RequestContext context, Q request);

    /** False for requests that get no response on the wire (produce with acks=0). */
    default boolean expectsResponse(Q request) {
        return true;
    }

    /** The errors in {@code response}, for metrics (and, for responses never sent, for closing the connection). */
    default Map<Errors, Integer> errorCounts(R response) {
        return Map.of();
    }
}
