package io.floe.core.object;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A byte range of an object that a store keeps on this machine ({@link LocalFiles}), as a file or (the
 * simulation's store) in memory, held open for reading: the network can send its bytes straight from
 * the page cache ({@code sendfile}) without the agent reading them. The file stays readable while the
 * range is held, even if the object is deleted meanwhile.
 *
 * <p>Reference counted: whoever opens the range holds one reference, each holder that keeps it
 * takes one more ({@link #retain()}), and the last {@link #release()} gives the file back to the
 * store, which may keep it open for later ranges. A range lost without being released keeps its
 * file open until the store lets go of the file too and the garbage collector finds its channel.
 */
public final class ObjectFileRange {

    private final ObjectKey key;
    private final String store;
    private final HeldObject file;
    private final ByteRange range;
    private final AtomicInteger references = new AtomicInteger(1);

    /** Takes over one reference of {@code file}, given back when this range is released for good. */
    ObjectFileRange(ObjectKey key, String store, HeldObject file, ByteRange range) {
        this.key = key;
        this.store = store;
        this.file = file;
        this.range = range;
    }

    /**
     * {@code range} of an object a store keeps in memory on this machine ({@code object}, the whole of
     * it, shared: base offsets later written into it show through), for stores with
     * {@link LocalFiles} but no files, such as the simulation's.
     *
     * @throws ObjectStoreException when the range lies past the object's end
     */
    public static ObjectFileRange inMemory(ObjectKey key, String store, ByteBuffer object, ByteRange range) {
        if (range.end() > object.limit()) {
            throw new ObjectStoreException(
                    "range " + range + " is past the end of object " + key + " in " + store + ": the object has "
                            + object.limit() + " bytes",
                    false);
        }
        return new ObjectFileRange(key, store, new HeldBytes(object), range);
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
        return file.transferTo(key, position, count, target);
    }

    /** Reads {@code length} bytes from object position {@code position} into a new heap buffer. */
    public ByteBuffer read(long position, int length) {
        checkWithin(position, length);
        return file.read(key, store, position, length);
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
            throw new IndexOutOfBoundsException(
                    "[" + position + ", " + (position + count) + ") is outside " + range + " of " + key);
        }
    }

    @Override
    public String toString() {
        return "ObjectFileRange[" + key + " " + range + "]";
    }
}
