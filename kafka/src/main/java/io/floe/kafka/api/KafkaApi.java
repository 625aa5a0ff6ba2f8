package io.floe.kafka.api;

import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * One Kafka API. {@link #handle} is called on the connection's event loop in request order and must
 * not block it: work that waits on a store returns a stage completed elsewhere. An exception thrown
 * or a stage failed becomes the API's error response.
 *
 * @param <Q> the request message
 * @param <R> the response message
 */
public interface KafkaApi<Q extends ApiMessage, R extends ApiMessage> {

    ApiKeys key();

    /** Oldest version served. */
    short minVersion();

    /** Newest version served. */
    short maxVersion();

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
