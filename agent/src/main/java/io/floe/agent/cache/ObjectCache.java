package io.floe.agent.cache;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An LRU cache of object byte ranges, bounded in bytes. Freshly uploaded objects go in whole, so
 * consumers reading the tail of a log never wait on the object store; ranges read on a miss go in
 * as well. Objects are immutable, so a cached range never goes stale. Thread-safe.
 *
 * <p>Entries are grouped by object and evicted an object at a time, least recently used first.
 * Returned buffers share the cached bytes and are writable: the fetch path patches batch offsets
 * into them in place (always the same value for a given range, see FetchReader).
 */
public final class ObjectCache {

    private final long bytesMax;
    private final Map<ObjectKey, TreeMap<Long, ByteBuffer>> objects = new LinkedHashMap<>(256, 0.75f, true);
    private long bytesCached;
    private final Counter hits;
    private final Counter misses;
    private final Counter evictions;

    public ObjectCache(long bytesMax, MeterRegistry meters) {
        this.bytesMax = bytesMax;
        this.hits = Counter.builder("floe.cache.requests")
                .tag("result", "hit")
                .description("Object-range reads answered from the cache")
                .register(meters);
        this.misses = Counter.builder("floe.cache.requests")
                .tag("result", "miss")
                .description("Object-range reads that went to the object store")
                .register(meters);
        this.evictions = Counter.builder("floe.cache.evictions")
                .description("Objects evicted from the cache")
                .register(meters);
        Gauge.builder("floe.cache.bytes", this, ObjectCache::bytesCached)
                .description("Bytes held by the object cache")
                .baseUnit("bytes")
                .register(meters);
        Gauge.builder("floe.cache.bytes.max", () -> bytesMax).baseUnit("bytes").register(meters);
    }

    /** Caches {@code data} as the bytes of {@code key} starting at {@code position}. */
    public void put(ObjectKey key, long position, ByteBuffer data) {
        int length = data.remaining();
        if (length == 0 || length > bytesMax) {
            return;
        }
        ByteBuffer stored = data.slice();
        synchronized (this) {
            ByteBuffer previous =
                    objects.computeIfAbsent(key, k -> new TreeMap<>()).put(position, stored);
            bytesCached += length - (previous == null ? 0 : previous.remaining());
            evictWhileOver(key);
        }
    }

    /** The cached bytes of {@code range}, when one cached entry covers it whole. */
    public Optional<ByteBuffer> get(ObjectKey key, ByteRange range) {
        ByteBuffer found = lookup(key, range);
        if (found == null) {
            misses.increment();
            return Optional.empty();
        }
        hits.increment();
        return Optional.of(found);
    }

    public synchronized long bytesCached() {
        return bytesCached;
    }

    private synchronized ByteBuffer lookup(ObjectKey key, ByteRange range) {
        TreeMap<Long, ByteBuffer> ranges = objects.get(key);
        if (ranges == null) {
            return null;
        }
        Map.Entry<Long, ByteBuffer> floor = ranges.floorEntry(range.position());
        if (floor == null || floor.getKey() + floor.getValue().remaining() < range.end()) {
            return null;
        }
        int offset = (int) (range.position() - floor.getKey());
        return floor.getValue().slice(offset, range.length());
    }

    private void evictWhileOver(ObjectKey justAdded) {
        Iterator<Map.Entry<ObjectKey, TreeMap<Long, ByteBuffer>>> eldest =
                objects.entrySet().iterator();
        while (bytesCached > bytesMax && eldest.hasNext()) {
            Map.Entry<ObjectKey, TreeMap<Long, ByteBuffer>> entry = eldest.next();
            if (entry.getKey().equals(justAdded) && objects.size() > 1) {
                continue;
            }
            for (ByteBuffer buffer : entry.getValue().values()) {
                bytesCached -= buffer.remaining();
            }
            eldest.remove();
            evictions.increment();
        }
    }
}
