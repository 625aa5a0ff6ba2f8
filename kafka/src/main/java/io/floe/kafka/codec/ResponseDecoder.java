package io.floe.kafka.codec;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Decodes a response frame (without its size prefix) as a client of {@code key} at {@code version}
 * would. Floe does not read responses; tests and tools do.
 */
public final class ResponseDecoder {

    private ResponseDecoder() {}

    public static DecodedResponse decode(ByteBuffer frame, ApiKeys key, short version) {
        ByteBuffer buffer = frame.duplicate();
        ResponseHeader header = ResponseHeader.parse(buffer, key.responseHeaderVersion(version));
        ApiMessage body = ApiMessageType.fromApiKey(key.id).newResponse();
        body.read(new ByteBufferAccessor(buffer), version);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException(
                    buffer.remaining() + " bytes left after " + key.name + " v" + version + " response");
        }
        return new DecodedResponse(header.correlationId(), body);
    }
}
