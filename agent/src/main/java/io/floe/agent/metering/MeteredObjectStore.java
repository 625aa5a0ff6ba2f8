package io.floe.agent.metering;

import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalFiles;
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
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Counts every object-store request by kind (PUT, GET, DELETE, LIST) with bytes, latency and
 * failures. These counts are what an S3 bill is made of, so they are how users see what Floe costs.
 */
public final class MeteredObjectStore implements ObjectStore {

    /** The request kinds an object store bills. */
    public enum Kind {
        PUT,
        GET,
        DELETE,
        LIST
    }

    private final ObjectStore delegate;
    private final LongSupplier nanoTime;
    private final Map<Kind, Timer> latency = new EnumMap<>(Kind.class);
    private final Map<Kind, Counter> bytes = new EnumMap<>(Kind.class);
    private final Map<Kind, Counter> failures = new EnumMap<>(Kind.class);
    private final Optional<LocalFiles> files;

    public MeteredObjectStore(ObjectStore delegate, MeterRegistry meters, LongSupplier nanoTime) {
        this.delegate = delegate;
        this.nanoTime = nanoTime;
        for (Kind kind : Kind.values()) {
            String tag = kind.name();
            latency.put(
                    kind,
                    Timer.builder("floe.objectstore.requests")
                            .tag("kind", tag)
                            .description("Object-store requests by kind, with latency")
                            .publishPercentiles(0.5, 0.99)
                            .register(meters));
            bytes.put(
                    kind,
                    Counter.builder("floe.objectstore.bytes")
                            .tag("kind", tag)
                            .baseUnit("bytes")
                            .description("Bytes written (PUT) and read (GET)")
                            .register(meters));
            failures.put(
                    kind,
                    Counter.builder("floe.objectstore.failures")
                            .tag("kind", tag)
                            .description("Object-store requests that failed")
                            .register(meters));
        }
        this.files = delegate.localFiles().map(MeteredFiles::new);
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

    /** The delegate's local files, metered. A store without them makes no such request, and none is counted. */
    @Override
    public Optional<LocalFiles> localFiles() {
        return files;
    }

    /** The delegate's local files, with file ranges counted as the GETs they are. */
    private final class MeteredFiles implements LocalFiles {

        private final LocalFiles local;

        MeteredFiles(LocalFiles local) {
            this.local = local;
        }

        /** A GET like the others: the bytes of the range leave the store, only without passing through the agent. */
        @Override
        public ObjectFileRange getFileRange(ObjectKey key, ByteRange range) {
            ObjectFileRange fileRange = measure(Kind.GET, () -> local.getFileRange(key, range));
            bytes.get(Kind.GET).increment(range.length());
            return fileRange;
        }

        /** A write to a local file, no object-store request: not metered. */
        @Override
        public void writeBaseOffsets(ObjectKey key, long[] positions, long[] offsets) {
            local.writeBaseOffsets(key, positions, offsets);
        }
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
        long started = nanoTime.getAsLong();
        try {
            return request.get();
        } catch (ObjectStoreException e) {
            failures.get(kind).increment();
            throw e;
        } finally {
            latency.get(kind).record(nanoTime.getAsLong() - started, TimeUnit.NANOSECONDS);
        }
    }
}
