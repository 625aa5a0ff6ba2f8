package io.floe.tableflow.io;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Reads an object through range requests of at least {@link #MIN_REQUEST_BYTES}, so the small
 * sequential reads of Avro manifests and Parquet footers cost one request per window, while Parquet's
 * large column-chunk reads go straight to one request each ({@link RangeReadable}). Iceberg's FileIO
 * reads through it, and so does the Delta log's ({@code delta.DeltaFileIO}).
 */
public final class ObjectInputStream extends SeekableInputStream implements RangeReadable {

    static final int MIN_REQUEST_BYTES = 1 << 20;

    private final ObjectStore store;
    private final ObjectKey key;
    private final String location;
    private final long length;
    private long position;
    private ByteBuffer window = ByteBuffer.allocate(0);
    private long windowStart;
    private boolean closed;

    public ObjectInputStream(ObjectStore store, ObjectKey key, String location, long length) {
        this.store = store;
        this.key = key;
        this.location = location;
        this.length = length;
    }

    @Override
    public long getPos() {
        return position;
    }

    @Override
    public void seek(long newPosition) throws IOException {
        ensureOpen();
        if (newPosition < 0) {
            throw new EOFException("negative position " + newPosition + " in " + location);
        }
        position = newPosition;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int count) throws IOException {
        ensureOpen();
        if (count == 0) {
            return 0;
        }
        if (position >= length) {
            return -1;
        }
        if (!inWindow(position)) {
            fill(position, Math.max(count, MIN_REQUEST_BYTES));
        }
        ByteBuffer view = window.duplicate();
        view.position((int) (position - windowStart));
        int n = Math.min(count, view.remaining());
        view.get(buffer, offset, n);
        position += n;
        return n;
    }

    @Override
    public void readFully(long filePosition, byte[] buffer, int offset, int count) throws IOException {
        ensureOpen();
        if (filePosition < 0 || filePosition + count > length) {
            throw new EOFException("range [" + filePosition + ", " + (filePosition + count) + ") is outside " + location
                    + " of " + length + " bytes");
        }
        get(filePosition, count).get(buffer, offset, count);
    }

    @Override
    public int readTail(byte[] buffer, int offset, int count) throws IOException {
        ensureOpen();
        int n = (int) Math.min(count, length);
        get(length - n, n).get(buffer, offset, n);
        return n;
    }

    private boolean inWindow(long at) {
        return at >= windowStart && at < windowStart + window.limit();
    }

    private void fill(long from, int atLeast) throws IOException {
        int size = (int) Math.min(atLeast, length - from);
        window = get(from, size);
        windowStart = from;
    }

    private ByteBuffer get(long from, int size) throws IOException {
        try {
            return store.get(key, new ByteRange(from, size));
        } catch (ObjectNotFoundException e) {
            throw new NotFoundException(e, "File does not exist: %s", location);
        } catch (RuntimeException e) {
            throw new IOException("cannot read " + location + " [" + from + ", " + (from + size) + "): " + e, e);
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("stream of " + location + " is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        window = ByteBuffer.allocate(0);
    }
}
