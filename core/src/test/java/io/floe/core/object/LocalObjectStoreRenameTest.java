package io.floe.core.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fallback for file systems without hard links. The full contract runs in testkit's
 * LocalObjectStoreTest (core's tests cannot depend on testkit); these tests cover what differs.
 */
class LocalObjectStoreRenameTest {

    @TempDir
    Path root;

    @Test
    void putsCreateOnlyByRenaming() throws Exception {
        LocalObjectStore store = new LocalObjectStore(root, false);
        ObjectKey key = new ObjectKey("segments/ab/0001.seg");

        store.put(key, bytes("original"));

        assertThatThrownBy(() -> store.put(key, bytes("replacement"))).isInstanceOf(ObjectAlreadyExistsException.class);
        assertThat(store.get(key)).isEqualTo(bytes("original"));
        assertThat(store.get(key, new ByteRange(2, 3))).isEqualTo(bytes("igi"));
        try (Stream<Path> temp = Files.list(root.resolve(".tmp"))) {
            assertThat(temp).isEmpty();
        }
    }

    @Test
    void letsExactlyOneConcurrentPutWin() throws Exception {
        LocalObjectStore store = new LocalObjectStore(root, false);
        ObjectKey key = new ObjectKey("contended.seg");
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Callable<Boolean>> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            ByteBuffer mine = bytes("writer-" + t);
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

        ExecutorService executor = Executors.newFixedThreadPool(threads);
        List<Boolean> won = new ArrayList<>();
        try {
            for (Future<Boolean> future : executor.invokeAll(writers)) {
                won.add(future.get(60, TimeUnit.SECONDS));
            }
        } finally {
            executor.shutdownNow();
        }

        assertThat(won).containsOnlyOnce(true);
        assertThat(store.get(key)).isEqualTo(bytes("writer-" + won.indexOf(true)));
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }
}
