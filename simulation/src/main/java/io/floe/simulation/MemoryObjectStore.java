package io.floe.simulation;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectAlreadyExistsException;
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
import java.util.TreeMap;

/** The object store of a simulation run: in memory, create-only, keeping the ObjectStore contract. */
final class MemoryObjectStore implements ObjectStore {

    private record Stored(byte[] bytes, long modifiedMillis) {}

    private final Clock clock;
    private final TreeMap<String, Stored> objects = new TreeMap<>();
    private long mutations;
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
            throw new ObjectStoreException("range " + range + " outside " + key + " of " + bytes.length + " bytes", false);
        }
        ByteBuffer copy = ByteBuffer.allocate(range.length());
        copy.put(bytes, (int) range.position(), range.length());
        return copy.flip();
    }

    @Override
    public synchronized ByteBuffer get(ObjectKey key) {
        return ByteBuffer.wrap(bytes(key).clone());
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
            found.add(new ObjectInfo(new ObjectKey(entry.getKey()), entry.getValue().bytes().length,
                    java.time.Instant.ofEpochMilli(entry.getValue().modifiedMillis())));
        }
        return found;
    }

    @Override
    public synchronized void delete(ObjectKey key) {
        if (objects.remove(key.value()) != null) {
            mutations++;
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
