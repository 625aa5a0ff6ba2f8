package io.floe.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How store keys map to bucket keys, with and without a prefix, seen from stores on one bucket. */
class S3ObjectStorePrefixTest {

    @TempDir
    static Path root;

    private static S3ProxyServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = new S3ProxyServer(root);
        server.createBucket("shared");
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Test
    void joinsPrefixAndKeyWithOneSlash() {
        try (S3ObjectStore whole = S3ObjectStore.open(server.config("shared"));
                S3ObjectStore prefixed =
                        S3ObjectStore.open(server.config("shared").withKeyPrefix("/join/a/"))) {
            prefixed.put(new ObjectKey("segments/ab/1.seg"), ByteBuffer.wrap(new byte[] {1, 2, 3}));

            assertThat(keys(whole.list("join/"))).containsExactly("join/a/segments/ab/1.seg");
            assertThat(keys(prefixed.list(""))).containsExactly("segments/ab/1.seg");
            assertThat(prefixed.get(new ObjectKey("segments/ab/1.seg")).remaining())
                    .isEqualTo(3);
            assertThat(prefixed.describe()).startsWith("s3://shared/join/a at ");
        }
    }

    @Test
    void seesNothingOutsideItsPrefix() {
        try (S3ObjectStore whole = S3ObjectStore.open(server.config("shared"));
                S3ObjectStore prefixed =
                        S3ObjectStore.open(server.config("shared").withKeyPrefix("scope/p"))) {
            // Not "scope/p" itself: S3Proxy's filesystem backend cannot hold a key that is also a directory.
            for (String key : List.of("scope/p/in", "scope/p/deep/in", "scope/px/out", "scope/p-x", "out")) {
                whole.put(new ObjectKey(key), ByteBuffer.wrap(new byte[] {7}));
            }

            assertThat(keys(prefixed.list(""))).containsExactly("deep/in", "in");
            assertThat(keys(prefixed.list("d"))).containsExactly("deep/in");
            prefixed.delete(new ObjectKey("in"));
            assertThat(keys(whole.list("scope/"))).containsExactly("scope/p-x", "scope/p/deep/in", "scope/px/out");
        }
    }

    @Test
    void keepsKeysWithCharactersThatNeedEncoding() {
        try (S3ObjectStore prefixed = S3ObjectStore.open(server.config("shared").withKeyPrefix("enc"))) {
            List<String> odd = List.of("a b/c+d=e&f", "ä/ö%20ü", "tilde~star*");
            for (String key : odd) {
                prefixed.put(new ObjectKey(key), ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)));
            }

            assertThat(keys(prefixed.list(""))).containsExactlyInAnyOrderElementsOf(odd);
            for (String key : odd) {
                assertThat(prefixed.get(new ObjectKey(key)).remaining())
                        .isEqualTo(key.getBytes(StandardCharsets.UTF_8).length);
                prefixed.delete(new ObjectKey(key));
            }
            assertThat(prefixed.list("")).isEmpty();
        }
    }

    private static List<String> keys(List<ObjectInfo> infos) {
        return infos.stream().map(info -> info.key().value()).toList();
    }
}
