package io.floe.kafka.codec;

import io.floe.core.log.RecordChunk;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;

/**
 * A {@link Writable} into Netty messages. Fields go into a growing buffer; a byte buffer at least
 * {@value #WRAP_MIN_BYTES} bytes long (fetched record data) is added as its own component of a
 * composite buffer instead of being copied, and a chunk of an object file becomes a file region of
 * its own, sent without passing through memory. The wrapped buffers must stay unchanged until written.
 */
final class ByteBufWritable implements Writable {

    static final int WRAP_MIN_BYTES = 4096;
    /**
     * Capacity of the buffer started after wrapped record data or a file region: what follows is
     * usually a patched offset or the next partition's fields (it grows when more comes).
     */
    private static final int BETWEEN_CHUNKS_BYTES = 256;

    private final ByteBufAllocator allocator;
    /** Finished messages: buffers and file regions, in order. */
    private final List<Object> parts = new ArrayList<>();

    private CompositeByteBuf composite;
    private ByteBuf current;

    ByteBufWritable(ByteBufAllocator allocator, int expectedBytes) {
        this.allocator = allocator;
        this.current = allocator.buffer(Math.min(Math.max(64, expectedBytes), 64 * 1024));
    }

    /** The messages written so far; the writable must not be used afterwards. */
    EncodedFrame finish() {
        endBuffers();
        return new EncodedFrame(parts);
    }

    /** Releases what was written, for when encoding fails part way. */
    void discard() {
        if (current != null) {
            current.release();
        }
        if (composite != null) {
            composite.release();
        }
        parts.forEach(ReferenceCountUtil::safeRelease);
        parts.clear();
    }

    /** Closes the buffers written since the last file region into one message. */
    private void endBuffers() {
        if (composite == null) {
            if (current.isReadable() || parts.isEmpty()) {
                parts.add(current);
            } else {
                current.release();
            }
        } else {
            if (current.isReadable()) {
                composite.addComponent(true, current);
            } else {
                current.release();
            }
            parts.add(composite);
            composite = null;
        }
        current = null;
    }

    private ByteBuf newBuffer() {
        return allocator.buffer(BETWEEN_CHUNKS_BYTES);
    }

    @Override
    public void writeByte(byte value) {
        current.writeByte(value);
    }

    @Override
    public void writeShort(short value) {
        current.writeShort(value);
    }

    @Override
    public void writeInt(int value) {
        current.writeInt(value);
    }

    @Override
    public void writeLong(long value) {
        current.writeLong(value);
    }

    @Override
    public void writeDouble(double value) {
        current.writeDouble(value);
    }

    @Override
    public void writeByteArray(byte[] bytes) {
        current.writeBytes(bytes);
    }

    @Override
    public void writeByteBuffer(ByteBuffer buffer) {
        if (buffer.remaining() < WRAP_MIN_BYTES) {
            current.writeBytes(buffer.duplicate());
            return;
        }
        if (composite == null) {
            composite = allocator.compositeBuffer(Integer.MAX_VALUE);
        }
        if (current.isReadable()) {
            composite.addComponent(true, current);
        } else {
            current.release();
        }
        composite.addComponent(true, Unpooled.wrappedBuffer(buffer.duplicate()));
        current = newBuffer();
    }

    @Override
    public void writeRecords(BaseRecords records) {
        if (records instanceof ChunkedRecords chunked) {
            chunked.chunks().forEach(this::writeChunk);
        } else {
            Writable.super.writeRecords(records);
        }
    }

    private void writeChunk(RecordChunk chunk) {
        if (chunk instanceof RecordChunk.InMemory inMemory) {
            writeByteBuffer(inMemory.bytes());
        } else {
            endBuffers();
            parts.add(new ObjectFileRegion((RecordChunk.InFile) chunk));
            current = newBuffer();
        }
    }

    @Override
    public void writeUnsignedVarint(int value) {
        int remaining = value;
        while ((remaining & 0xffffff80) != 0) {
            current.writeByte((remaining & 0x7f) | 0x80);
            remaining >>>= 7;
        }
        current.writeByte(remaining);
    }

    @Override
    public void writeVarint(int value) {
        writeUnsignedVarint((value << 1) ^ (value >> 31));
    }

    @Override
    public void writeVarlong(long value) {
        long remaining = (value << 1) ^ (value >> 63);
        while ((remaining & 0xffffffffffffff80L) != 0L) {
            current.writeByte(((int) remaining & 0x7f) | 0x80);
            remaining >>>= 7;
        }
        current.writeByte((int) remaining);
    }
}
