package io.floe.kafka.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Encodes responses as whole frames: 4-byte size, response header, body. Sizes are computed first,
 * so the bytes go straight into the Netty buffer; fetched record data is wrapped or sent from its
 * file, not copied (see {@link ByteBufWritable}).
 */
public final class ResponseEncoder {

    private ResponseEncoder() {}

    /** The frame answering {@code correlationId} with {@code body}, a response of {@code key} at {@code version}. */
    public static EncodedFrame encode(
            ByteBufAllocator allocator, int correlationId, ApiKeys key, short version, ApiMessage body) {
        short headerVersion = key.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBufWritable out = new ByteBufWritable(allocator, 4 + size);
        try {
            out.writeInt(size);
            header.write(out, cache, headerVersion);
            body.write(out, cache, version);
        } catch (RuntimeException e) {
            out.discard();
            throw e;
        }
        EncodedFrame frame = out.finish();
        if (frame.bytes() != 4 + size) {
            long written = frame.bytes();
            frame.release();
            throw new IllegalStateException(
                    key.name + " v" + version + " response wrote " + written + " bytes, expected " + (4 + size));
        }
        return frame;
    }

    /**
     * The smallest answer a client can match to its request: header v0 (the correlation id) and an
     * int16 error code. Used when no proper response of the API can be built.
     */
    public static EncodedFrame encodeErrorCode(ByteBufAllocator allocator, int correlationId, Errors error) {
        ByteBuf frame = allocator.buffer(10);
        frame.writeInt(6);
        frame.writeInt(correlationId);
        frame.writeShort(error.code());
        return EncodedFrame.of(frame);
    }
}
