package io.floe.simulation;

import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalFiles;
import io.floe.core.object.ObjectAlreadyExistsException;
import io.floe.core.object.ObjectFileRange;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * One simulated process's view of the shared object store, with faults (see {@link Faults}). A PUT
 * applied late is handed to the network node: it lands after the caller saw a timeout, whether or not
 * the caller still lives. The store's {@link LocalFiles} pass through: a file range is a GET with its
 * faults; a write of base offsets goes straight to the store.
 */
final class FaultyObjectStore implements ObjectStore {

    private final ObjectStore store;
    private final StoreCalls calls;
    private final SimExecutor network;
    private final Optional<LocalFiles> files;

    FaultyObjectStore(ObjectStore store, StoreCalls calls, SimExecutor network) {
        this.store = store;
        this.calls = calls;
        this.network = network;
        this.files = store.localFiles().map(FaultyFiles::new);
    }

    @Override
    public void put(ObjectKey key, ByteBuffer content) {
        if (calls.world().onWorldThread()
                && calls.node().alive()
                && calls.faults().delayedPut()) {
            ByteBuffer copy = ByteBuffer.allocate(content.remaining())
                    .put(content.duplicate())
                    .flip();
            network.schedule(
                    () -> {
                        try {
                            store.put(key, copy);
                        } catch (ObjectAlreadyExistsException ignored) {
                            // the writer's retry under the same key got there first: create-only keeps the first
                        }
                    },
                    calls.world().between(1_000_000_000L, 30_000_000_000L),
                    java.util.concurrent.TimeUnit.NANOSECONDS);
            calls.world().await(calls.faults().latencyNanos());
            calls.node().checkAlive();
            throw new ObjectStoreException("injected: PUT " + key + " timed out (it lands later)", true);
        }
        calls.call(
                true,
                () -> {
                    store.put(key, content);
                    return null;
                },
                () -> failure("PUT " + key),
                null);
    }

    @Override
    public ByteBuffer get(ObjectKey key, ByteRange range) {
        return calls.call(false, () -> store.get(key, range), () -> failure("GET " + key), null);
    }

    @Override
    public ByteBuffer get(ObjectKey key) {
        return calls.call(false, () -> store.get(key), () -> failure("GET " + key), null);
    }

    @Override
    public Optional<LocalFiles> localFiles() {
        return files;
    }

    /** The store's local files, with faults. */
    private final class FaultyFiles implements LocalFiles {

        private final LocalFiles local;

        FaultyFiles(LocalFiles local) {
            this.local = local;
        }

        @Override
        public ObjectFileRange getFileRange(ObjectKey key, ByteRange range) {
            return calls.call(false, () -> local.getFileRange(key, range), () -> failure("GET " + key), null);
        }

        /** A write into a local file, no request: it neither waits nor fails (the agent makes it while committing). */
        @Override
        public void writeBaseOffsets(ObjectKey key, long[] positions, long[] offsets) {
            calls.node().checkAlive();
            local.writeBaseOffsets(key, positions, offsets);
        }
    }

    @Override
    public List<ObjectInfo> list(String prefix) {
        return calls.call(false, () -> store.list(prefix), () -> failure("LIST " + prefix), null);
    }

    @Override
    public void delete(ObjectKey key) {
        calls.call(
                true,
                () -> {
                    store.delete(key);
                    return null;
                },
                () -> failure("DELETE " + key),
                null);
    }

    private static ObjectStoreException failure(String what) {
        return new ObjectStoreException("injected: " + what + " failed (503 SlowDown)", true);
    }

    @Override
    public String describe() {
        return "faulty(" + store.describe() + ")";
    }

    @Override
    public void close() {}
}
