package io.floe.kafka.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Splits the byte stream into Kafka frames (int32 size, then that many bytes). Each request is
 * copied into its own heap buffer: the produce path keeps slices of it (the records) until they are
 * flushed, so it cannot live in Netty's pooled, reused memory. After an oversized or invalid frame
 * the decoder discards everything that follows; the connection is about to close.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    /** Bytes of an oversized frame read to parse its header: enough for any sane client id. */
    static final int OVERSIZED_HEAD_BYTES = 512;

    private final int maxFrameBytes;
    private boolean discarding;

    FrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (discarding) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < Integer.BYTES) {
            return;
        }
        int size = in.getInt(in.readerIndex());
        if (size < 0) {
            discarding = true;
            in.skipBytes(in.readableBytes());
            out.add(new InboundFrame.Invalid(size));
        } else if (size > maxFrameBytes) {
            int headBytes = Math.min(size, OVERSIZED_HEAD_BYTES);
            if (in.readableBytes() < Integer.BYTES + headBytes) {
                return;
            }
            in.skipBytes(Integer.BYTES);
            out.add(new InboundFrame.Oversized(copy(in, headBytes), size));
            discarding = true;
            in.skipBytes(in.readableBytes());
        } else if (in.readableBytes() >= Integer.BYTES + size) {
            in.skipBytes(Integer.BYTES);
            out.add(new InboundFrame.Request(copy(in, size)));
        }
    }

    private static ByteBuffer copy(ByteBuf in, int bytes) {
        ByteBuffer copy = ByteBuffer.allocate(bytes);
        in.readBytes(copy);
        return copy.flip();
    }
}
