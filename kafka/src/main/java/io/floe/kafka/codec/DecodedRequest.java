package io.floe.kafka.codec;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

/** What one request frame decoded to. Callers switch over it. */
public sealed interface DecodedRequest {

    /** A served API at a served version, parsed. */
    record Valid(RequestHeader header, ApiMessage body) implements DecodedRequest {}

    /** An API key that kafka-clients does not know: only the correlation id is trusted. */
    record UnknownApi(short apiKey, short apiVersion, int correlationId) implements DecodedRequest {}

    /**
     * An API kafka-clients knows, but that Floe does not serve at this version (or at all). The body
     * is parsed when kafka-clients can, so the error response can name what was asked; else null.
     */
    record UnsupportedVersion(RequestHeader header, ApiMessage body) implements DecodedRequest {}

    /** The header parsed but the body did not. */
    record MalformedBody(RequestHeader header, RuntimeException cause) implements DecodedRequest {}

    /** Not even the header parsed: the connection cannot be trusted. */
    record MalformedHeader(RuntimeException cause) implements DecodedRequest {}
}
