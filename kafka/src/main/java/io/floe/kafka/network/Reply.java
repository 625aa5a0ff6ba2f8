package io.floe.kafka.network;

import io.floe.kafka.codec.EncodedFrame;
import io.floe.kafka.codec.ErrorResponses;
import io.floe.kafka.codec.ResponseEncoder;
import io.netty.buffer.ByteBufAllocator;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A response ready to be encoded: an API's message, or the minimal error frame. */
sealed interface Reply {

    int correlationId();

    EncodedFrame encode(ByteBufAllocator allocator);

    /** {@code body} as the response of {@code key} at {@code version}. */
    record Message(ApiKeys key, short version, int correlationId, ApiMessage body) implements Reply {

        private static final Logger LOGGER = LoggerFactory.getLogger(Reply.class);

        /** Falls back to the API's error response, then to the minimal frame, if the body cannot be encoded. */
        @Override
        public EncodedFrame encode(ByteBufAllocator allocator) {
            try {
                return ResponseEncoder.encode(allocator, correlationId, key, version, body);
            } catch (RuntimeException e) {
                LOGGER.error(
                        "Cannot encode response api={} version={} correlationId={}; answering "
                                + "UNKNOWN_SERVER_ERROR",
                        key.name,
                        version,
                        correlationId,
                        e);
            }
            try {
                ApiMessage fallback = ErrorResponses.of(
                                key, version, null, new UnknownServerException("response could not be encoded"))
                        .orElse(null);
                if (fallback != null) {
                    return ResponseEncoder.encode(allocator, correlationId, key, version, fallback);
                }
            } catch (RuntimeException e) {
                LOGGER.error("Cannot encode error response api={} version={}", key.name, version, e);
            }
            return ResponseEncoder.encodeErrorCode(allocator, correlationId, Errors.UNKNOWN_SERVER_ERROR);
        }
    }

    /** Header v0 and an int16 error code, for requests no proper response can be built for. */
    record ErrorCode(int correlationId, Errors error) implements Reply {

        @Override
        public EncodedFrame encode(ByteBufAllocator allocator) {
            return ResponseEncoder.encodeErrorCode(allocator, correlationId, error);
        }
    }
}
