package io.floe.agent.metering;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectFileRange;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Counts every object-store request by kind (PUT, GET, DELETE, LIST) with bytes, latency and
 * failures. These counts are what an S3 bill is made of, so they are how users see what Floe costs.
 */
public final class MeteredObjectStore implements ObjectStore {

    /** The request kinds an object store bills. */
    public enum Kind { PUT, GET, DELETE, LIST }

    private final ObjectStore delegate;
    private final Map<Kind, Timer> latency = new EnumMap<>(Kind.class);
    private final Map<Kind, Counter> bytes = new EnumMap<>(Kind.class);
    private final Map<Kind, Counter> failures = new EnumMap<>(Kind.class);

    public MeteredObjectStore(ObjectStore delegate, MeterRegistry meters) {
        this.delegate = delegate;
        for (Kind kind : Kind.values()) {
            String tag = kind.name();
            latency.put(kind, Timer.builder("floe.objectstore.requests").tag("kind", tag)
                    .description("Object-store requests by kind, with latency").publishPercentiles(0.5, 0.99)
                    .register(meters));
            bytes.put(kind, Counter.builder("floe.objectstore.bytes").tag("kind", tag).baseUnit("bytes")
                    .description("Bytes written (PUT) and read (GET)").register(meters));
            failures.put(kind, Counter.builder("floe.objectstore.failures").tag("kind", tag)
                    .description("Object-store requests that failed").register(meters));
        }
    }

    @Override
    public void put(ObjectKey key, ByteBuffer content) {
        int size = content.remaining();
        measure(Kind.PUT, () -> {
            delegate.put(key, content);
            return null;
        });
        bytes.get(Kind.PUT).increment(size);
    }

    @Override
    public ByteBuffer get(ObjectKey key, ByteRange range) {
        ByteBuffer data = measure(Kind.GET, () -> delegate.get(key, range));
        bytes.get(Kind.GET).increment(data.remaining());
        return data;
    }

    @Override
    public ByteBuffer get(ObjectKey key) {
        ByteBuffer data = measure(Kind.GET, () -> delegate.get(key));
        bytes.get(Kind.GET).increment(data.remaining());
        return data;
    }

    /**
     * A GET like the others: the bytes of the range leave the store, only without passing through the
     * agent. A store without local files makes no request, and none is counted.
     */
    @Override
    public Optional<ObjectFileRange> getFileRange(ObjectKey key, ByteRange range) {
        if (!delegate.keepsLocalFiles()) {
            return Optional.empty();
        }
        Optional<ObjectFileRange> fileRange = measure(Kind.GET, () -> delegate.getFileRange(key, range));
        fileRange.ifPresent(opened -> bytes.get(Kind.GET).increment(range.length()));
        return fileRange;
    }

    @Override
    public boolean keepsLocalFiles() {
        return delegate.keepsLocalFiles();
    }

    /** A write to a local file, no object-store request: not metered. */
    @Override
    public boolean writeBaseOffsets(ObjectKey key, long[] positions, long[] offsets) {
        return delegate.writeBaseOffsets(key, positions, offsets);
    }

    @Override
    public List<ObjectInfo> list(String prefix) {
        return measure(Kind.LIST, () -> delegate.list(prefix));
    }

    @Override
    public void delete(ObjectKey key) {
        measure(Kind.DELETE, () -> {
            delegate.delete(key);
            return null;
        });
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }

    private <T> T measure(Kind kind, Supplier<T> request) {
        long started = System.nanoTime();
        try {
            return request.get();
        } catch (ObjectStoreException e) {
            failures.get(kind).increment();
            throw e;
        } finally {
            latency.get(kind).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        }
    }
}
