package io.floe.cli.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.agent.InProcessS3;
import io.floe.cli.e2e.faults.S3FaultProxy.Fault;
import io.floe.core.object.ObjectKey;
import io.floe.objectstore.s3.S3ObjectStore;
import io.floe.objectstore.s3.S3ObjectStoreConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy's faults as Floe's S3 object store meets them through the AWS SDK: each is injected,
 * counted, and survived by the SDK's retries or the store's check of its own lost PUT.
 */
class S3FaultProxyIT {

    @TempDir
    Path dir;

    private InProcessS3 s3;
    private S3FaultProxy proxy;
    private S3ObjectStore store;

    @BeforeEach
    void start() throws Exception {
        s3 = new InProcessS3(dir);
        s3.createBucket("bucket");
        proxy = new S3FaultProxy(s3.endpoint(), 42);
        store = S3ObjectStore.open(S3ObjectStoreConfig.forBucket("bucket")
                .withEndpoint(proxy.endpoint())
                .withPathStyleAccess(true)
                .withStaticCredentials(InProcessS3.ACCESS_KEY, InProcessS3.SECRET_KEY));
    }

    @AfterEach
    void stop() throws Exception {
        store.close();
        proxy.close();
        s3.close();
    }

    @Test
    void aSlowDownIsRetriedByTheClient() {
        proxy.slowDownNext(1);

        store.put(key("a"), bytes("alpha"));

        assertThat(text(store.get(key("a")))).isEqualTo("alpha");
        assertThat(proxy.injected()).containsEntry(Fault.SLOW_DOWN, 1);
    }

    @Test
    void aPutWhoseResponseIsLostIsStoredOnceAndConfirmed() {
        proxy.loseNextPutResponses(1);

        store.put(key("b"), bytes("beta"));

        assertThat(text(store.get(key("b")))).isEqualTo("beta");
        assertThat(proxy.injected()).containsEntry(Fault.LOST_PUT_RESPONSE, 1);
    }

    @Test
    void randomFaultsAreInjectedAndCounted() {
        proxy.rates(new S3FaultProxy.Rates(0.1, 0.3, 0.1, Duration.ofMillis(20)));
        for (int i = 0; i < 40; i++) {
            store.put(key("k" + i), bytes("value " + i));
        }
        proxy.heal();

        for (int i = 0; i < 40; i++) {
            assertThat(text(store.get(key("k" + i)))).isEqualTo("value " + i);
        }
        assertThat(proxy.injected().get(Fault.LATENCY)).isPositive();
        assertThat(proxy.injected().get(Fault.SLOW_DOWN) + proxy.injected().get(Fault.LOST_PUT_RESPONSE))
                .isPositive();
    }

    @Test
    void cutConnectionsAreReopened() {
        store.put(key("c"), bytes("gamma"));

        assertThat(proxy.cutConnections()).isPositive();

        assertThat(text(store.get(key("c")))).isEqualTo("gamma");
        assertThat(proxy.injected()).containsEntry(Fault.CONNECTIONS_CUT, 1);
    }

    private static ObjectKey key(String name) {
        return new ObjectKey("test/" + name);
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
