package io.floe.core.object;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * An object kept in memory, held by the ranges handed out of it: they see later writes of base
 * offsets into it (as ranges of a file do) and keep it readable after the object is deleted.
 */
final class HeldBytes implements HeldObject {

    private final ByteBuffer object;

    HeldBytes(ByteBuffer object) {
        this.object = object;
    }

    @Override
    public long transferTo(ObjectKey key, long position, long count, WritableByteChannel target) throws IOException {
        ByteBuffer slice = object.duplicate();
        slice.limit(Math.toIntExact(position + count)).position(Math.toIntExact(position));
        return target.write(slice);
    }

    @Override
    public ByteBuffer read(ObjectKey key, String store, long position, int length) {
        ByteBuffer slice = object.duplicate();
        slice.limit(Math.toIntExact(position + length)).position(Math.toIntExact(position));
        return ByteBuffer.allocate(length).put(slice).flip();
    }

    @Override
    public void release() {
        // Memory needs no closing: the collector takes it once no range holds it.
    }
}
