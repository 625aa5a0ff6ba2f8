package io.floe.kafka.codec;

import io.floe.core.log.RecordChunk;
import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * A chunk of an object file as a Netty message: the transport sends it with {@code sendfile}
 * (NIO: {@code FileChannel.transferTo} into the socket), never through the heap. Owns the chunk's
 * reference to the file and releases it when Netty is done with the message (sent, or dropped
 * with a closed connection).
 */
final class ObjectFileRegion extends AbstractReferenceCounted implements FileRegion {

    private final RecordChunk.InFile chunk;
    private long transferred;

    ObjectFileRegion(RecordChunk.InFile chunk) {
        this.chunk = chunk;
    }

    @Override
    public long position() {
        return chunk.position();
    }

    @Override
    public long count() {
        return chunk.length();
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    /** Sends what the socket takes, from {@code position} bytes into this region; Netty calls again for the rest. */
    @Override
    public long transferTo(WritableByteChannel target, long position) throws IOException {
        long remaining = chunk.length() - position;
        if (remaining <= 0) {
            return 0;
        }
        long written = chunk.file().transferTo(chunk.position() + position, remaining, target);
        if (written > 0) {
            transferred += written;
        }
        return written;
    }

    @Override
    public FileRegion retain() {
        super.retain();
        return this;
    }

    @Override
    public FileRegion retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public FileRegion touch() {
        return this;
    }

    @Override
    public FileRegion touch(Object hint) {
        return this;
    }

    @Override
    protected void deallocate() {
        chunk.file().release();
    }
}
