package io.floe.kafka.codec;

import java.util.Optional;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Error responses in the API's own format, built by kafka-clients' {@code getErrorResponse}, so each
 * API puts the error where its clients look (top level, per topic or per partition).
 */
public final class ErrorResponses {

    private ErrorResponses() {}

    /**
     * The response of {@code key} at {@code version} that answers {@code request} (or an empty request
     * of that API when null) with {@code error}. Empty when kafka-clients cannot build one at that
     * version; callers then send {@link ResponseEncoder#encodeErrorCode}.
     */
    public static Optional<ApiMessage> of(ApiKeys key, short version, ApiMessage request, ApiException error) {
        if (!key.isVersionSupported(version)) {
            return Optional.empty();
        }
        Optional<ApiMessage> answer = request == null ? Optional.empty() : build(key, version, request, error);
        return answer.isPresent()
                ? answer
                : build(key, version, ApiMessageType.fromApiKey(key.id).newRequest(), error);
    }

    private static Optional<ApiMessage> build(ApiKeys key, short version, ApiMessage request, ApiException error) {
        try {
            ByteBufferAccessor bytes = MessageUtil.toByteBufferAccessor(request, version);
            AbstractRequest parsed = AbstractRequest.parseRequest(key, version, bytes).request;
            AbstractResponse response = parsed.getErrorResponse(0, error);
            // Produce with acks=0 has no error response; an empty response is still a valid answer.
            return Optional.of(
                    response != null
                            ? response.data()
                            : ApiMessageType.fromApiKey(key.id).newResponse());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
