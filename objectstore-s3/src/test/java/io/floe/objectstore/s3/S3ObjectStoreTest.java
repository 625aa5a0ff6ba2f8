package io.floe.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.testkit.object.ObjectStoreContract;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The object-store contract against a real S3-compatible server (S3Proxy), each test in a fresh
 * bucket under a key prefix, so every operation also maps keys through the prefix.
 */
class S3ObjectStoreTest extends ObjectStoreContract {

    static final String PREFIX = "floe/data";

    @TempDir
    static Path root;

    private static S3ProxyServer server;
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private String bucket;

    @BeforeAll
    static void startServer() throws Exception {
        server = new S3ProxyServer(root);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Override
    protected ObjectStore createStore() {
        bucket = "contract-" + BUCKETS.incrementAndGet();
        server.createBucket(bucket);
        return S3ObjectStore.open(server.config(bucket).withKeyPrefix(PREFIX));
    }

    @Test
    void describesBucketPrefixAndEndpoint() {
        assertThat(store().describe()).isEqualTo("s3://" + bucket + "/" + PREFIX + " at " + server.endpoint());
    }

    @Test
    void readsRangesAtTheEdgesOfAnObject() {
        ObjectKey key = new ObjectKey("edges/1000.seg");
        byte[] content = content(11, 1000);
        store().put(key, ByteBuffer.wrap(content));

        for (ByteRange range : new ByteRange[] {
            new ByteRange(0, 1),
            new ByteRange(999, 1),
            new ByteRange(0, 1000),
            new ByteRange(1, 999),
            new ByteRange(998, 2),
            new ByteRange(1000, 0),
            new ByteRange(0, 0)
        }) {
            int from = (int) range.position();
            assertContent(store().get(key, range), Arrays.copyOfRange(content, from, from + range.length()));
        }
        assertThatThrownBy(() -> store().get(key, new ByteRange(999, 2)))
                .isExactlyInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("range [999, 1001) of object edges/1000.seg in s3://" + bucket)
                .hasMessageContaining("the object has 1000 bytes");
        assertThatThrownBy(() -> store().get(key, new ByteRange(1000, 1)))
                .isExactlyInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("past its end");
        assertThatThrownBy(() -> store().get(key, new ByteRange(1001, 0)))
                .isExactlyInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("the object has 1000 bytes");
    }

    @Test
    void storesAndReadsAnEmptyObject() {
        ObjectKey key = new ObjectKey("edges/empty");
        store().put(key, ByteBuffer.allocate(0));

        assertThat(store().get(key).remaining()).isZero();
        assertThat(store().get(key, new ByteRange(0, 0)).remaining()).isZero();
        assertThat(store().list("edges/"))
                .singleElement()
                .satisfies(info -> assertThat(info.sizeBytes()).isZero());
        assertThatThrownBy(() -> store().get(key, new ByteRange(0, 1)))
                .isExactlyInstanceOf(ObjectStoreException.class)
                .satisfies(
                        e -> assertThat(((ObjectStoreException) e).retriable()).isFalse());
    }

    @Test
    void reportsAMissingObjectForAnEmptyRange() {
        assertThatThrownBy(() -> store().get(new ObjectKey("edges/missing"), new ByteRange(0, 0)))
                .isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void listsAcrossPages() {
        try (S3ObjectStore paged =
                S3ObjectStore.open(server.config(bucket).withKeyPrefix(PREFIX), UUID::randomUUID, 7)) {
            for (int i = 0; i < 30; i++) {
                paged.put(new ObjectKey(String.format("pages/%02d", i)), ByteBuffer.wrap(new byte[] {(byte) i}));
            }

            assertThat(paged.list("pages/"))
                    .hasSize(30)
                    .extracting(info -> info.key().value())
                    .startsWith("pages/00", "pages/01")
                    .endsWith("pages/29");
        }
    }
}
