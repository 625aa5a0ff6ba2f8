package io.floe.core.object;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An object's file held open for reading, shared by the local store's {@link OpenFiles} and the
 * {@link ObjectFileRange}s handed out from it. Reference counted; the last release closes it.
 */
final class OpenObjectFile {

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

    void release() {
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
