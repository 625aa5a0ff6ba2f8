package io.floe.kafka.api;

import io.floe.kafka.codec.VersionRange;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * A {@link KafkaApi} seen through {@link ApiMessage}, so the network layer can call any API without
 * knowing its message types. The decoder only hands an API the request type it reads for that API
 * key, which makes the casts below safe.
 */
public final class RegisteredApi {

    private final KafkaApi<ApiMessage, ApiMessage> api;
    private final VersionRange versions;

    @SuppressWarnings("unchecked")
    RegisteredApi(KafkaApi<? extends ApiMessage, ? extends ApiMessage> api) {
        this.api = (KafkaApi<ApiMessage, ApiMessage>) api;
        this.versions = new VersionRange(api.minVersion(), api.maxVersion());
    }

    public ApiKeys key() {
        return api.key();
    }

    public VersionRange versions() {
        return versions;
    }

    /** Calls the handler; a stage of a response message of this API. */
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
