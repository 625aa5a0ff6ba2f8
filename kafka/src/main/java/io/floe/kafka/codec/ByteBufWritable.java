package io.floe.kafka.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.protocol.Writable;

/**
 * A {@link Writable} into a Netty buffer. Fields go into a growing buffer; a byte buffer at least
 * {@value #WRAP_MIN_BYTES} bytes long (fetched record data) is added as its own component of a
 * composite buffer instead of being copied. The wrapped buffers must stay unchanged until written.
 */
final class ByteBufWritable implements Writable {

    static final int WRAP_MIN_BYTES = 4096;

    private final ByteBufAllocator allocator;
    private final int chunkBytes;
    private CompositeByteBuf composite;
    private ByteBuf current;

    ByteBufWritable(ByteBufAllocator allocator, int expectedBytes) {
        this.allocator = allocator;
        this.chunkBytes = Math.max(64, expectedBytes);
        this.current = allocator.buffer(Math.min(chunkBytes, 64 * 1024));
    }

    /** The bytes written so far; the writable must not be used afterwards. */
    ByteBuf finish() {
        if (composite == null) {
            return current;
        }
        if (current.isReadable()) {
            composite.addComponent(true, current);
        } else {
            current.release();
        }
        return composite;
    }

    /** Releases what was written, for when encoding fails part way. */
    void discard() {
        current.release();
        if (composite != null) {
            composite.release();
        }
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
        current = allocator.buffer(Math.min(chunkBytes, 64 * 1024));
    }

    @Override
    public void writeRecords(BaseRecords records) {
        if (records instanceof ChunkedRecords chunked) {
            chunked.chunks().forEach(this::writeByteBuffer);
        } else {
            Writable.super.writeRecords(records);
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
