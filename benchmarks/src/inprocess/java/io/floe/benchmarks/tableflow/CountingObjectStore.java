package io.floe.benchmarks.tableflow;

import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalFiles;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * An object store that counts the requests made through it by the name of the calling thread, so a driver can
 * tell the table job's requests ({@code floe-tableflow-N}) from its own (a Delta sync it runs itself). Local file
 * ranges (the agent's fetch and produce path) pass through uncounted: Tableflow and the Delta mirror never use
 * them, they go through get, put and list as they would on S3.
 */
final class CountingObjectStore implements ObjectStore {

    /** Requests made by one thread so far. */
    record Requests(long puts, long gets, long lists, long deletes, long putBytes, long getBytes, long checkpointPuts) {

        static final Requests NONE = new Requests(0, 0, 0, 0, 0, 0, 0);

        Requests minus(Requests earlier) {
            return new Requests(
                    puts - earlier.puts,
                    gets - earlier.gets,
                    lists - earlier.lists,
                    deletes - earlier.deletes,
                    putBytes - earlier.putBytes,
                    getBytes - earlier.getBytes,
                    checkpointPuts - earlier.checkpointPuts);
        }
    }

    private static final class Counters {
        final LongAdder puts = new LongAdder();
        final LongAdder gets = new LongAdder();
        final LongAdder lists = new LongAdder();
        final LongAdder deletes = new LongAdder();
        final LongAdder putBytes = new LongAdder();
        final LongAdder getBytes = new LongAdder();
        final LongAdder checkpointPuts = new LongAdder();

        Requests read() {
            return new Requests(puts.sum(), gets.sum(), lists.sum(), deletes.sum(), putBytes.sum(), getBytes.sum(),
                    checkpointPuts.sum());
        }
    }

    private final ObjectStore delegate;
    private final Map<String, Counters> byThread = new ConcurrentHashMap<>();

    CountingObjectStore(ObjectStore delegate) {
        this.delegate = delegate;
    }

    /** What the thread named {@code thread} has requested so far. */
    Requests requests(String thread) {
        Counters counters = byThread.get(thread);
        return counters == null ? Requests.NONE : counters.read();
    }

    private Counters mine() {
        return byThread.computeIfAbsent(Thread.currentThread().getName(), name -> new Counters());
    }

    @Override
    public void put(ObjectKey key, ByteBuffer content) {
        Counters counters = mine();
        counters.puts.increment();
        counters.putBytes.add(content.remaining());
        if (key.value().contains(".checkpoint.")) {
            counters.checkpointPuts.increment();
        }
        delegate.put(key, content);
    }

    @Override
    public ByteBuffer get(ObjectKey key, ByteRange range) {
        ByteBuffer data = delegate.get(key, range);
        Counters counters = mine();
        counters.gets.increment();
        counters.getBytes.add(data.remaining());
        return data;
    }

    @Override
    public ByteBuffer get(ObjectKey key) {
        ByteBuffer data = delegate.get(key);
        Counters counters = mine();
        counters.gets.increment();
        counters.getBytes.add(data.remaining());
        return data;
    }

    @Override
    public Optional<LocalFiles> localFiles() {
        return delegate.localFiles();
    }

    @Override
    public List<ObjectInfo> list(String prefix) {
        mine().lists.increment();
        return delegate.list(prefix);
    }

    @Override
    public void delete(ObjectKey key) {
        mine().deletes.increment();
        delegate.delete(key);
    }

    @Override
    public String describe() {
        return "counting " + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
