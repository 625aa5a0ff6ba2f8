package io.floe.simulation;

import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalFiles;
import io.floe.core.object.ObjectAlreadyExistsException;
import io.floe.core.object.ObjectFileRange;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The object store of a simulation run: in memory, create-only, keeping the ObjectStore contract. It
 * has {@link LocalFiles} as the default {@code file:} store does, so a run takes the same paths: file
 * ranges sent as they are, base offsets written into objects after a commit.
 */
final class MemoryObjectStore implements ObjectStore, LocalFiles {

    private record Stored(byte[] bytes, long modifiedMillis) {}

    private final Clock clock;
    private final TreeMap<String, Stored> objects = new TreeMap<>();
    private long mutations;
    private long deletions;
    private java.util.Random lossRandom;
    private double lossRate;

    MemoryObjectStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized void put(ObjectKey key, ByteBuffer content) {
        if (objects.containsKey(key.value())) {
            throw new ObjectAlreadyExistsException(key);
        }
        if (lossRandom != null && lossRandom.nextDouble() < lossRate) {
            return; // a negative control: the write is acknowledged and lost
        }
        byte[] bytes = new byte[content.remaining()];
        content.duplicate().get(bytes);
        objects.put(key.value(), new Stored(bytes, clock.millis()));
        mutations++;
    }

    @Override
    public synchronized ByteBuffer get(ObjectKey key, ByteRange range) {
        byte[] bytes = bytes(key);
        if (range.position() < 0 || range.end() > bytes.length) {
            throw new ObjectStoreException(
                    "range " + range + " outside " + key + " of " + bytes.length + " bytes", false);
        }
        ByteBuffer copy = ByteBuffer.allocate(range.length());
        copy.put(bytes, (int) range.position(), range.length());
        return copy.flip();
    }

    @Override
    public synchronized ByteBuffer get(ObjectKey key) {
        return ByteBuffer.wrap(bytes(key).clone());
    }

    @Override
    public Optional<LocalFiles> localFiles() {
        return Optional.of(this);
    }

    @Override
    public synchronized ObjectFileRange getFileRange(ObjectKey key, ByteRange range) {
        return ObjectFileRange.inMemory(key, describe(), ByteBuffer.wrap(bytes(key)), range);
    }

    /**
     * Into the stored bytes, as into a file (ranges handed out see them). Not counted as a mutation:
     * readers patch the same offsets in anyway.
     */
    @Override
    public synchronized void writeBaseOffsets(ObjectKey key, long[] positions, long[] offsets) {
        if (positions.length != offsets.length) {
            throw new IllegalArgumentException(positions.length + " positions for " + offsets.length + " offsets");
        }
        ByteBuffer object = ByteBuffer.wrap(bytes(key));
        for (long position : positions) {
            if (position < 0 || position + Long.BYTES > object.limit()) {
                throw new ObjectStoreException(
                        "base offset at " + position + " of object " + key + " in " + describe()
                                + " is past its end: the object has " + object.limit() + " bytes",
                        false);
            }
        }
        for (int i = 0; i < positions.length; i++) {
            object.putLong((int) positions[i], offsets[i]);
        }
    }

    private byte[] bytes(ObjectKey key) {
        Stored stored = objects.get(key.value());
        if (stored == null) {
            throw new ObjectNotFoundException(key);
        }
        return stored.bytes();
    }

    @Override
    public synchronized List<ObjectInfo> list(String prefix) {
        List<ObjectInfo> found = new ArrayList<>();
        for (Map.Entry<String, Stored> entry : objects.tailMap(prefix, true).entrySet()) {
            if (!entry.getKey().startsWith(prefix)) {
                break;
            }
            found.add(new ObjectInfo(
                    new ObjectKey(entry.getKey()),
                    entry.getValue().bytes().length,
                    java.time.Instant.ofEpochMilli(entry.getValue().modifiedMillis())));
        }
        return found;
    }

    @Override
    public synchronized void delete(ObjectKey key) {
        if (objects.remove(key.value()) != null) {
            mutations++;
            deletions++;
        }
    }

    /** A negative control: from now on, a share {@code rate} of PUTs is acknowledged and not stored. */
    synchronized void losePuts(java.util.Random random, double rate) {
        this.lossRandom = random;
        this.lossRate = rate;
    }

    /** How many puts and deletes changed the store so far. */
    synchronized long mutations() {
        return mutations;
    }

    /** How many deletes removed an object so far. */
    synchronized long deletions() {
        return deletions;
    }

    synchronized boolean contains(ObjectKey key) {
        return objects.containsKey(key.value());
    }

    synchronized List<String> keys() {
        return new ArrayList<>(objects.keySet());
    }

    @Override
    public String describe() {
        return "memory";
    }

    @Override
    public void close() {}
}
