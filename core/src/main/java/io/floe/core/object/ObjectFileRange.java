package io.floe.core.object;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A byte range of an object that a local store keeps as a file, held open for reading: the network
 * can send its bytes straight from the page cache ({@code sendfile}) without the agent reading them.
 * The file stays readable while the range is held, even if the object is deleted meanwhile.
 *
 * <p>Reference counted: whoever opens the range holds one reference, each holder that keeps it
 * takes one more ({@link #retain()}), and the last {@link #release()} gives the file back to the
 * store, which may keep it open for later ranges. A range lost without being released keeps its
 * file open until the store lets go of the file too and the garbage collector finds its channel.
 */
public final class ObjectFileRange {

    private final ObjectKey key;
    private final String store;
    private final OpenObjectFile file;
    private final ByteRange range;
    private final AtomicInteger references = new AtomicInteger(1);

    /** Takes over one reference of {@code file}, given back when this range is released for good. */
    ObjectFileRange(ObjectKey key, String store, OpenObjectFile file, ByteRange range) {
        this.key = key;
        this.store = store;
        this.file = file;
        this.range = range;
    }

    public ObjectKey key() {
        return key;
    }

    /** The range of the object this holds; positions below are object positions within it. */
    public ByteRange range() {
        return range;
    }

    /**
     * Sends up to {@code count} bytes from object position {@code position} to {@code target};
     * returns how many were sent (possibly fewer, as a socket takes what fits).
     */
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        checkWithin(position, count);
        long sent = file.channel().transferTo(position, count, target);
        if (sent == 0 && count > 0 && file.channel().size() < position + count) {
            // Nothing would ever be sent: fail instead of having the caller retry for good.
            throw new IOException("object " + key + " has " + file.channel().size() + " bytes, " + (position + count)
                    + " expected: it was changed outside the store");
        }
        return sent;
    }

    /** Reads {@code length} bytes from object position {@code position} into a new heap buffer. */
    public ByteBuffer read(long position, int length) {
        checkWithin(position, length);
        try {
            return LocalObjectStore.readIntoHeap(key, store, file.channel(), position, length);
        } catch (IOException e) {
            throw new ObjectStoreException("reading object " + key + " in " + store + " failed: " + e, true, e);
        }
    }

    /** Takes one more reference; fails once the range was released for good. */
    public ObjectFileRange retain() {
        references.updateAndGet(count -> {
            if (count <= 0) {
                throw new IllegalStateException("range of " + key + " is already released");
            }
            return count + 1;
        });
        return this;
    }

    /** Drops one reference; the last one gives the file back (it closes once nobody else holds it). */
    public void release() {
        int left = references.decrementAndGet();
        if (left == 0) {
            file.release();
        } else if (left < 0) {
            throw new IllegalStateException("range of " + key + " released more often than retained");
        }
    }

    private void checkWithin(long position, long count) {
        if (position < range.position() || count < 0 || position + count > range.end()) {
            throw new IndexOutOfBoundsException("[" + position + ", " + (position + count) + ") is outside "
                    + range + " of " + key);
        }
    }

    @Override
    public String toString() {
        return "ObjectFileRange[" + key + " " + range + "]";
    }
}
