package io.floe.core.object;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * What an {@link ObjectFileRange} holds: an object's file held open ({@link OpenObjectFile}), or an
 * object kept in memory ({@link HeldBytes}). Positions are object positions, already checked to lie
 * within the range handed out.
 */
interface HeldObject {

    /** Sends up to {@code count} bytes from {@code position}; returns how many went. */
    long transferTo(ObjectKey key, long position, long count, WritableByteChannel target) throws IOException;

    /** Reads {@code length} bytes from {@code position} into a new heap buffer. */
    ByteBuffer read(ObjectKey key, String store, long position, int length);

    /** Gives back the reference the range held. */
    void release();
}
