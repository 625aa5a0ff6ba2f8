package io.floe.kafka.api;

import io.floe.kafka.codec.VersionRange;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * A {@link KafkaApi} as registered: its api key, the versions it serves, where it runs, and the API
 * seen through {@link ApiMessage}, so the network layer can call any API without knowing its message
 * types. The decoder only hands an API the request type it reads for that API key, which makes the
 * casts below safe.
 */
public final class RegisteredApi {

    /** Where the dispatcher calls an API. */
    public enum Execution {
        /** On the connection's event loop: the API never blocks (it may return a stage completed later). */
        EVENT_LOOP,
        /** On the blocking executor: the API reads or writes the metadata store, or may otherwise wait. */
        BLOCKING
    }

    private final ApiKeys key;
    private final VersionRange versions;
    private final Execution execution;
    private final KafkaApi<ApiMessage, ApiMessage> api;

    @SuppressWarnings("unchecked")
    RegisteredApi(
            ApiKeys key,
            VersionRange versions,
            Execution execution,
            KafkaApi<? extends ApiMessage, ? extends ApiMessage> api) {
        this.key = key;
        this.versions = versions;
        this.execution = execution;
        this.api = (KafkaApi<ApiMessage, ApiMessage>) api;
    }

    public ApiKeys key() {
        return key;
    }

    public VersionRange versions() {
        return versions;
    }

    public Execution execution() {
        return execution;
    }

    /** Calls the handler on the calling thread; a stage of a response message of this API. */
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        return api.handle(context, request);
    }

    public boolean expectsResponse(ApiMessage request) {
        return api.expectsResponse(request);
    }

    public Map<Errors, Integer> errorCounts(ApiMessage response) {
        return api.errorCounts(response);
    }
}
