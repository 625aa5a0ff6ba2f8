package io.floe.kafka.codec;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Decodes request frames (the bytes after the 4-byte size) into header and body, given the versions
 * Floe serves. Never throws: every frame maps to one {@link DecodedRequest}. Record data in the body
 * (produce records) stays a view of {@code frame}, so the frame's buffer must not be reused.
 */
public final class RequestDecoder {

    /** api key, api version and correlation id: the header fields every header version starts with. */
    static final int HEADER_PREFIX_BYTES = 8;

    private final Map<ApiKeys, VersionRange> served;

    public RequestDecoder(Map<ApiKeys, VersionRange> served) {
        this.served = served.isEmpty() ? Map.of() : new EnumMap<>(served);
    }

    public DecodedRequest decode(ByteBuffer frame) {
        ByteBuffer buffer = frame.duplicate();
        if (buffer.remaining() < HEADER_PREFIX_BYTES) {
            return new DecodedRequest.MalformedHeader(new IllegalArgumentException(
                    "frame of " + buffer.remaining() + " bytes is shorter than a request header"));
        }
        short apiKey = buffer.getShort(buffer.position());
        short apiVersion = buffer.getShort(buffer.position() + 2);
        if (!ApiKeys.hasId(apiKey)) {
            return new DecodedRequest.UnknownApi(apiKey, apiVersion, buffer.getInt(buffer.position() + 4));
        }
        RequestHeader header;
        try {
            header = RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            return new DecodedRequest.MalformedHeader(e);
        }
        VersionRange range = served.get(header.apiKey());
        if (range == null || !range.contains(header.apiVersion())) {
            ApiMessage body = null;
            if (header.apiKey().isVersionSupported(header.apiVersion())) {
                try {
                    body = readBody(header, buffer);
                } catch (RuntimeException e) {
                    body = null;
                }
            }
            return new DecodedRequest.UnsupportedVersion(header, body);
        }
        try {
            return new DecodedRequest.Valid(header, readBody(header, buffer));
        } catch (RuntimeException e) {
            return new DecodedRequest.MalformedBody(header, e);
        }
    }

    private static ApiMessage readBody(RequestHeader header, ByteBuffer buffer) {
        ApiMessage body = ApiMessageType.fromApiKey(header.apiKey().id).newRequest();
        body.read(new ByteBufferAccessor(buffer), header.apiVersion());
        return body;
    }
}
