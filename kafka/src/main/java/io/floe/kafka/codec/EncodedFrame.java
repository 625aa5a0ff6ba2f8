package io.floe.kafka.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * An encoded response frame as the messages to write, in order: buffers, and file regions for record
 * data sent straight from object files. Writing the messages hands them to Netty, which releases them.
 */
public final class EncodedFrame {

    private final List<Object> parts;
    private final long bytes;

    EncodedFrame(List<Object> parts) {
        this.parts = List.copyOf(parts);
        long total = 0;
        for (Object part : this.parts) {
            if (part instanceof ByteBuf buffer) {
                total += buffer.readableBytes();
            } else if (part instanceof FileRegion region) {
                total += region.count();
            } else {
                throw new IllegalArgumentException("not a frame part: " + part);
            }
        }
        this.bytes = total;
    }

    static EncodedFrame of(ByteBuf buffer) {
        return new EncodedFrame(List.of(buffer));
    }

    /** Bytes of the whole frame, its size prefix included. */
    public long bytes() {
        return bytes;
    }

    /** The messages to write, in order: {@link ByteBuf}s and {@link FileRegion}s. */
    public List<Object> parts() {
        return parts;
    }

    /** The frame as one buffer, for frames without file regions (tests, tools). */
    public ByteBuf toByteBuf() {
        if (parts.size() != 1 || !(parts.get(0) instanceof ByteBuf buffer)) {
            throw new IllegalStateException("frame of " + parts.size() + " parts is not one buffer");
        }
        return buffer;
    }

    /** Releases every part, for a frame that will not be written. */
    public void release() {
        parts.forEach(ReferenceCountUtil::safeRelease);
    }
}
