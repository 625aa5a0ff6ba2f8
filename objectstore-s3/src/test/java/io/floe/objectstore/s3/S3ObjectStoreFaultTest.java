package io.floe.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.ObjectAlreadyExistsException;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStoreException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults between the store and S3: lost responses, server errors, a server that went away, and how
 * a create-only put tells its own earlier attempt from another writer after a 412.
 */
class S3ObjectStoreFaultTest {

    @TempDir
    static Path root;

    private static S3ProxyServer server;
    private FaultProxy proxy;

    @BeforeAll
    static void startServer() throws Exception {
        server = new S3ProxyServer(root);
        server.createBucket("faults");
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @BeforeEach
    void startProxy() throws Exception {
        proxy = new FaultProxy(server.port());
    }

    @AfterEach
    void stopProxy() throws Exception {
        proxy.close();
    }

    @Test
    void aRetriedPutWhoseResponseWasLostSucceeds() {
        ObjectKey key = new ObjectKey("lost/response.seg");
        byte[] content = content(1, 50_000);
        try (S3ObjectStore store = S3ObjectStore.open(S3ProxyServer.config(proxy.endpoint(), "faults"))) {
            proxy.dropNextResponse();

            // S3 stores the object, the answer is lost, the SDK retries and gets 412 for our own object.
            store.put(key, ByteBuffer.wrap(content));

            assertThat(proxy.droppedResponses()).isEqualTo(1);
            assertThat(bytes(store.get(key))).isEqualTo(content);
        }
    }

    @Test
    void aPutThatMeetsItsOwnWriteIdSucceeds() {
        ObjectKey key = new ObjectKey("stamp/same-id.seg");
        UUID writeId = UUID.randomUUID();
        byte[] content = content(2, 4_000);
        try (S3ObjectStore first = open(writeId);
                S3ObjectStore retry = open(writeId)) {
            first.put(key, ByteBuffer.wrap(content));

            retry.put(key, ByteBuffer.wrap(content)); // what the SDK's retry of the same request does

            assertThat(bytes(first.get(key))).isEqualTo(content);
        }
    }

    @Test
    void identicalBytesFromAnotherPutStillExist() {
        ObjectKey key = new ObjectKey("stamp/other-id.seg");
        byte[] content = content(3, 4_000);
        try (S3ObjectStore first = open(UUID.randomUUID());
                S3ObjectStore second = open(UUID.randomUUID())) {
            first.put(key, ByteBuffer.wrap(content));

            assertThatThrownBy(() -> second.put(key, ByteBuffer.wrap(content)))
                    .isExactlyInstanceOf(ObjectAlreadyExistsException.class)
                    .hasMessageContaining(key.value());
        }
    }

    @Test
    void anObjectWithOurWriteIdButOtherBytesIsReportedAsChanged() {
        ObjectKey key = new ObjectKey("stamp/changed.seg");
        UUID writeId = UUID.randomUUID();
        byte[] content = content(4, 4_000);
        try (S3ObjectStore first = open(writeId);
                S3ObjectStore second = open(writeId)) {
            first.put(key, ByteBuffer.wrap(content));

            assertThatThrownBy(() -> second.put(key, ByteBuffer.wrap(content(5, 4_000))))
                    .isExactlyInstanceOf(ObjectStoreException.class)
                    .hasMessageContaining("carries the write id of this put")
                    .satisfies(e ->
                            assertThat(((ObjectStoreException) e).retriable()).isFalse());
            assertThat(bytes(first.get(key))).isEqualTo(content);
        }
    }

    @Test
    void aServerErrorIsRetriableAndNamesWhatFailed() {
        ObjectKey key = new ObjectKey("errors/500.seg");
        try (S3ObjectStore store = S3ObjectStore.open(
                S3ProxyServer.config(proxy.endpoint(), "faults").withMaxRetries(0))) {
            store.put(key, ByteBuffer.wrap(content(6, 100)));
            proxy.failNextGets(1);

            assertThatThrownBy(() -> store.get(key))
                    .isExactlyInstanceOf(ObjectStoreException.class)
                    .hasMessageStartingWith("get object errors/500.seg in s3://faults at " + proxy.endpoint())
                    .hasMessageContaining("HTTP 500 InternalError")
                    .satisfies(e ->
                            assertThat(((ObjectStoreException) e).retriable()).isTrue());
        }
    }

    @Test
    void theSdkRetriesAServerError() {
        ObjectKey key = new ObjectKey("errors/retried.seg");
        byte[] content = content(7, 100);
        try (S3ObjectStore store = S3ObjectStore.open(
                S3ProxyServer.config(proxy.endpoint(), "faults").withMaxRetries(2))) {
            store.put(key, ByteBuffer.wrap(content));
            proxy.failNextGets(2);

            assertThat(bytes(store.get(key))).isEqualTo(content);
            assertThat(proxy.injectedErrors()).isEqualTo(2);
        }
    }

    @Test
    void aServerThatWentAwayIsRetriable() throws Exception {
        ObjectKey key = new ObjectKey("errors/gone.seg");
        try (S3ObjectStore store = S3ObjectStore.open(
                S3ProxyServer.config(proxy.endpoint(), "faults").withMaxRetries(0))) {
            proxy.close();

            assertThatThrownBy(() -> store.put(key, ByteBuffer.wrap(content(8, 100))))
                    .isExactlyInstanceOf(ObjectStoreException.class)
                    .hasMessageStartingWith("put object errors/gone.seg in s3://faults")
                    .satisfies(e ->
                            assertThat(((ObjectStoreException) e).retriable()).isTrue());
            assertThatThrownBy(() -> store.list(""))
                    .isExactlyInstanceOf(ObjectStoreException.class)
                    .satisfies(e ->
                            assertThat(((ObjectStoreException) e).retriable()).isTrue());
        }
    }

    private static S3ObjectStore open(UUID writeId) {
        return S3ObjectStore.open(server.config("faults"), () -> writeId, S3ObjectStore.LIST_PAGE_SIZE_MAX);
    }

    private static byte[] content(int seed, int size) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
