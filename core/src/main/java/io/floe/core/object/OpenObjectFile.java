package io.floe.core.object;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An object's file held open for reading, shared by the local store's {@link OpenFiles} and the
 * {@link ObjectFileRange}s handed out from it. Reference counted; the last release closes it.
 */
final class OpenObjectFile implements HeldObject {

    private final FileChannel channel;
    private final long size;
    private final AtomicInteger references = new AtomicInteger(1);

    /** Takes ownership of {@code channel}; the caller holds the first reference. */
    OpenObjectFile(FileChannel channel) throws IOException {
        this.channel = channel;
        this.size = channel.size();
    }

    FileChannel channel() {
        return channel;
    }

    /** The object's size when it was opened (objects never change). */
    long size() {
        return size;
    }

    @Override
    public long transferTo(ObjectKey key, long position, long count, WritableByteChannel target) throws IOException {
        long sent = channel.transferTo(position, count, target);
        if (sent == 0 && count > 0 && channel.size() < position + count) {
            // Nothing would ever be sent: fail instead of having the caller retry for good.
            throw new IOException("object " + key + " has " + channel.size() + " bytes, " + (position + count)
                    + " expected: it was changed outside the store");
        }
        return sent;
    }

    @Override
    public ByteBuffer read(ObjectKey key, String store, long position, int length) {
        try {
            return LocalObjectStore.readIntoHeap(key, store, channel, position, length);
        } catch (IOException e) {
            throw new ObjectStoreException("reading object " + key + " in " + store + " failed: " + e, true, e);
        }
    }

    /** One more reference, unless the file was closed already. */
    boolean tryRetain() {
        int count;
        do {
            count = references.get();
            if (count <= 0) {
                return false;
            }
        } while (!references.compareAndSet(count, count + 1));
        return true;
    }

    @Override
    public void release() {
        int left = references.decrementAndGet();
        if (left == 0) {
            try {
                channel.close();
            } catch (IOException e) {
                // Read-only: nothing is lost by a failed close.
            }
        } else if (left < 0) {
            throw new IllegalStateException("object file released more often than retained");
        }
    }
}
