package io.floe.testkit.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalFiles;
import io.floe.core.object.ObjectAlreadyExistsException;
import io.floe.core.object.ObjectFileRange;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link ObjectStore} contract, run against every implementation: extend it next to the
 * implementation and return a fresh, empty store from {@link #createStore()}.
 */
public abstract class ObjectStoreContract {

    private static final int THREADS = 8;
    private static final long TIMEOUT_SECONDS = 60;

    private ObjectStore store;

    /** A new store holding no objects; the suite closes it after each test. */
    protected abstract ObjectStore createStore();

    /** The store of the running test, for implementation-specific tests in subclasses. */
    protected final ObjectStore store() {
        return store;
    }

    @BeforeEach
    final void openStore() {
        store = createStore();
    }

    @AfterEach
    final void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    public void getsWhatWasPut() {
        ObjectKey key = new ObjectKey("segments/ab/0001.seg");
        byte[] content = content(1, 10_000);

        store.put(key, ByteBuffer.wrap(content));

        assertContent(store.get(key), content);
    }

    @Test
    public void getsExactRanges() {
        ObjectKey key = new ObjectKey("segments/ab/0002.seg");
        byte[] content = content(2, 10_000);
        store.put(key, ByteBuffer.wrap(content));

        for (ByteRange range : List.of(
                new ByteRange(0, 1),
                new ByteRange(0, 10_000),
                new ByteRange(1234, 4321),
                new ByteRange(9_999, 1),
                new ByteRange(5_000, 5_000),
                new ByteRange(17, 0))) {
            ByteBuffer read = store.get(key, range);
            int from = (int) range.position();
            assertContent(read, Arrays.copyOfRange(content, from, from + range.length()));
        }
    }

    @Test
    public void handsOutReadsThatTheCallerMayWriteWithoutChangingTheObject() {
        ObjectKey key = new ObjectKey("segments/ab/0003.seg");
        byte[] content = content(4, 1 << 20);
        store.put(key, ByteBuffer.wrap(content));

        for (ByteRange range :
                List.of(new ByteRange(100, 512 * 1024), new ByteRange(7, 100), new ByteRange(0, 1 << 20))) {
            ByteBuffer read = store.get(key, range);
            int from = (int) range.position();
            assertContent(read, Arrays.copyOfRange(content, from, from + range.length()));
            for (int i = read.position(); i < read.limit(); i += 4096) {
                read.put(i, (byte) ~read.get(i));
            }
        }

        assertContent(store.get(key), content);
        assertContent(
                store.get(key, new ByteRange(100, 512 * 1024)), Arrays.copyOfRange(content, 100, 100 + 512 * 1024));
    }

    @Test
    public void putsFromPositionToLimitWithoutMovingTheBuffer() {
        byte[] content = content(3, 1_000);
        ByteBuffer heap = ByteBuffer.wrap(content).position(10).limit(990);
        ByteBuffer direct = ByteBuffer.allocateDirect(content.length)
                .put(content)
                .position(10)
                .limit(990);
        ByteBuffer readOnly =
                ByteBuffer.wrap(content).asReadOnlyBuffer().position(10).limit(990);
        byte[] expected = Arrays.copyOfRange(content, 10, 990);

        int n = 0;
        for (ByteBuffer buffer : List.of(heap, direct, readOnly)) {
            ObjectKey key = new ObjectKey("buffers/" + n++);
            store.put(key, buffer);
            assertThat(buffer.position()).as("position of buffer %s", key).isEqualTo(10);
            assertThat(buffer.limit()).as("limit of buffer %s", key).isEqualTo(990);
            assertContent(store.get(key), expected);
        }
    }

    @Test
    public void neverReplacesAnObject() {
        ObjectKey key = new ObjectKey("segments/ab/0003.seg");
        byte[] original = content(4, 2_000);
        store.put(key, ByteBuffer.wrap(original));

        assertThatThrownBy(() -> store.put(key, ByteBuffer.wrap(content(5, 3_000))))
                .isInstanceOf(ObjectAlreadyExistsException.class)
                .hasMessageContaining(key.value());
        assertThatThrownBy(() -> store.put(key, ByteBuffer.wrap(original)))
                .as("even with the same content")
                .isInstanceOf(ObjectAlreadyExistsException.class);
        assertContent(store.get(key), original);
    }

    @Test
    public void reportsMissingObjects() {
        ObjectKey key = new ObjectKey("segments/ab/missing.seg");

        assertThatThrownBy(() -> store.get(key)).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store.get(key, new ByteRange(0, 1))).isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    public void rejectsRangesPastTheEnd() {
        ObjectKey key = new ObjectKey("segments/ab/0004.seg");
        store.put(key, ByteBuffer.wrap(content(6, 100)));

        for (ByteRange range :
                List.of(new ByteRange(99, 2), new ByteRange(100, 1), new ByteRange(0, 101), new ByteRange(1_000, 10))) {
            assertThatThrownBy(() -> store.get(key, range))
                    .as("range %s", range)
                    .isInstanceOf(ObjectStoreException.class)
                    .isNotInstanceOf(ObjectNotFoundException.class)
                    .satisfies(e ->
                            assertThat(((ObjectStoreException) e).retriable()).isFalse());
        }
    }

    /**
     * A store that keeps local files hands out file ranges with exactly the bytes {@code get} reads
     * and the same errors; every other store has none.
     */
    @Test
    public void fileRangesHoldWhatGetReads() throws Exception {
        ObjectKey key = new ObjectKey("segments/ab/0005.seg");
        byte[] content = content(7, 100_000);
        store.put(key, ByteBuffer.wrap(content));
        ByteRange range = new ByteRange(1_000, 50_000);

        Optional<LocalFiles> files = store.localFiles();

        assertThat(store.localFiles()).as("the same answer every time").isEqualTo(files);
        if (files.isEmpty()) {
            return;
        }
        ObjectFileRange file = files.get().getFileRange(key, range);
        try {
            assertContent(file.read(2_000, 10_000), Arrays.copyOfRange(content, 2_000, 12_000));
            ByteArrayOutputStream sent = new ByteArrayOutputStream();
            WritableByteChannel target = Channels.newChannel(sent);
            long position = range.position();
            while (position < range.end()) {
                position += file.transferTo(position, range.end() - position, target);
            }
            assertThat(sent.toByteArray()).isEqualTo(Arrays.copyOfRange(content, 1_000, 51_000));
            assertThatThrownBy(() -> file.read(0, 10))
                    .as("outside the range")
                    .isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            file.release();
        }
        assertThatThrownBy(file::retain).as("the last release closed it").isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> files.get().getFileRange(new ObjectKey("segments/ab/missing.seg"), range))
                .isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> files.get().getFileRange(key, new ByteRange(99_999, 2)))
                .isInstanceOf(ObjectStoreException.class)
                .isNotInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    public void fileRangesOfADeletedObjectStayReadableAndAKeyPutAgainServesItsNewContent() throws Exception {
        ObjectKey key = new ObjectKey("segments/ab/0006.seg");
        store.put(key, ByteBuffer.wrap(content(1, 1_000)));
        Optional<LocalFiles> files = store.localFiles();
        if (files.isEmpty()) {
            return; // no files in this store
        }
        ObjectFileRange held = files.get().getFileRange(key, new ByteRange(0, 1_000));
        files.get().getFileRange(key, new ByteRange(0, 10)).release();

        store.delete(key);
        try {
            assertContent(held.read(0, 1_000), content(1, 1_000));
        } finally {
            held.release();
        }
        assertThatThrownBy(() -> files.get().getFileRange(key, new ByteRange(0, 10)))
                .isInstanceOf(ObjectNotFoundException.class);
        store.put(key, ByteBuffer.wrap(content(2, 2_000)));
        ObjectFileRange again = files.get().getFileRange(key, new ByteRange(0, 2_000));
        try {
            assertContent(again.read(0, 2_000), content(2, 2_000));
        } finally {
            again.release();
        }
    }

    @Test
    public void baseOffsetsAreWrittenIntoLocalFilesOnly() {
        ObjectKey key = new ObjectKey("segments/ab/0007.seg");
        byte[] content = content(3, 1_000);
        store.put(key, ByteBuffer.wrap(content));

        Optional<LocalFiles> files = store.localFiles();
        if (files.isEmpty()) {
            return; // nothing to write into
        }

        files.get().writeBaseOffsets(key, new long[] {0, 500}, new long[] {42, 1L << 40});

        ByteBuffer now = store.get(key);
        assertThat(now.getLong(0)).isEqualTo(42);
        assertThat(now.getLong(500)).isEqualTo(1L << 40);
        byte[] expected = content.clone();
        ByteBuffer.wrap(expected).putLong(0, 42).putLong(500, 1L << 40);
        assertContent(now, expected);
        assertThatThrownBy(() -> files.get().writeBaseOffsets(key, new long[] {995}, new long[] {1}))
                .isInstanceOf(ObjectStoreException.class)
                .isNotInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> files.get()
                        .writeBaseOffsets(new ObjectKey("segments/ab/missing.seg"), new long[] {0}, new long[] {1}))
                .isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    public void listsByPrefixInKeyOrder() {
        // '-' and '.' sort before '/': key order is string order, not a tree walk's order.
        List<String> keys = List.of("seg/b/2", "seg/a/1", "seg/a-x", "other/1", "seg/a.y", "seg0", "seg/a/0");
        for (int i = 0; i < keys.size(); i++) {
            store.put(new ObjectKey(keys.get(i)), ByteBuffer.wrap(content(i, 10 + i)));
        }

        assertThat(keysOf(store.list("seg/"))).containsExactly("seg/a-x", "seg/a.y", "seg/a/0", "seg/a/1", "seg/b/2");
        assertThat(keysOf(store.list("seg/a"))).containsExactly("seg/a-x", "seg/a.y", "seg/a/0", "seg/a/1");
        assertThat(keysOf(store.list("seg")))
                .containsExactly("seg/a-x", "seg/a.y", "seg/a/0", "seg/a/1", "seg/b/2", "seg0");
        assertThat(keysOf(store.list("")))
                .containsExactly("other/1", "seg/a-x", "seg/a.y", "seg/a/0", "seg/a/1", "seg/b/2", "seg0");
        assertThat(store.list("nothing/")).isEmpty();
    }

    @Test
    public void listsSizes() {
        store.put(new ObjectKey("sizes/a"), ByteBuffer.wrap(content(7, 123)));
        store.put(new ObjectKey("sizes/b"), ByteBuffer.wrap(content(8, 4567)));

        List<ObjectInfo> listed = store.list("sizes/");

        assertThat(listed).extracting(ObjectInfo::sizeBytes).containsExactly(123L, 4567L);
        assertThat(listed).allSatisfy(info -> assertThat(info.lastModified()).isNotNull());
    }

    @Test
    public void deletesIdempotently() {
        ObjectKey key = new ObjectKey("segments/ab/0005.seg");
        ObjectKey kept = new ObjectKey("segments/ab/0006.seg");
        store.put(key, ByteBuffer.wrap(content(9, 100)));
        store.put(kept, ByteBuffer.wrap(content(10, 100)));

        store.delete(key);
        store.delete(key);
        store.delete(new ObjectKey("segments/ab/never-written.seg"));

        assertThatThrownBy(() -> store.get(key)).isInstanceOf(ObjectNotFoundException.class);
        assertThat(keysOf(store.list("segments/"))).containsExactly(kept.value());
        assertContent(store.get(kept), content(10, 100));
    }

    @Test
    public void describesItself() {
        assertThat(store.describe()).isNotBlank();
    }

    @Test
    public void storesConcurrentPutsOfDistinctKeys() throws Exception {
        int keysPerThread = 20;
        List<Callable<Void>> writers = new ArrayList<>();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            writers.add(() -> {
                start.await();
                for (int i = 0; i < keysPerThread; i++) {
                    store.put(distinctKey(thread, i), ByteBuffer.wrap(content(thread * 1000 + i, 2_000 + i)));
                }
                return null;
            });
        }

        runAll(writers);

        assertThat(store.list("distinct/")).hasSize(THREADS * keysPerThread);
        for (int thread = 0; thread < THREADS; thread++) {
            for (int i = 0; i < keysPerThread; i++) {
                assertContent(store.get(distinctKey(thread, i)), content(thread * 1000 + i, 2_000 + i));
            }
        }
    }

    @Test
    public void letsExactlyOneOfConcurrentPutsOfOneKeyWin() throws Exception {
        for (int round = 0; round < 10; round++) {
            ObjectKey key = new ObjectKey("contended/" + round + ".seg");
            byte[][] contents = new byte[THREADS][];
            List<Callable<Boolean>> writers = new ArrayList<>();
            CyclicBarrier start = new CyclicBarrier(THREADS);
            for (int t = 0; t < THREADS; t++) {
                contents[t] = content(round * THREADS + t, 64 * 1024 + t);
                ByteBuffer mine = ByteBuffer.wrap(contents[t]);
                writers.add(() -> {
                    start.await();
                    try {
                        store.put(key, mine);
                        return true;
                    } catch (ObjectAlreadyExistsException e) {
                        return false;
                    }
                });
            }

            List<Boolean> won = runAll(writers);

            assertThat(won).as("round %d: winners", round).containsOnlyOnce(true);
            assertContent(store.get(key), contents[won.indexOf(true)]);
        }
    }

    /** Deterministic, incompressible-looking bytes, different for each seed. */
    protected static byte[] content(int seed, int size) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** Asserts that {@code actual} holds exactly {@code expected} from its position to its limit. */
    protected static void assertContent(ByteBuffer actual, byte[] expected) {
        byte[] bytes = new byte[actual.remaining()];
        actual.duplicate().get(bytes);
        assertThat(bytes.length).as("bytes read").isEqualTo(expected.length);
        int mismatch = Arrays.mismatch(bytes, expected);
        if (mismatch >= 0) {
            fail(
                    "content differs at byte %d of %d: read %d, expected %d",
                    mismatch, expected.length, bytes[mismatch], expected[mismatch]);
        }
    }

    private static ObjectKey distinctKey(int thread, int i) {
        return new ObjectKey("distinct/" + thread + "/" + i);
    }

    private static List<String> keysOf(List<ObjectInfo> infos) {
        return infos.stream().map(info -> info.key().value()).toList();
    }

    /** Runs the tasks on their own threads at once and returns their results in task order. */
    private static <T> List<T> runAll(List<Callable<T>> tasks) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(tasks.size());
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(executor.submit(task));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            executor.shutdownNow();
        }
    }
}
