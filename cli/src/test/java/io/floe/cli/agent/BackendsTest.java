package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.objectstore.s3.S3ObjectStoreConfig.StaticCredentials;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackendsTest {

    private static final Clock CLOCK = Clock.systemUTC();

    @TempDir
    Path dir;

    @Test
    void fileUrlsOpenTheLocalObjectStore() {
        try (ObjectStore store = Backends.objectStore("file:" + dir.resolve("objects"), S3Options.DEFAULTS, CLOCK)) {
            assertThat(store.describe())
                    .isEqualTo("file:" + dir.resolve("objects").toAbsolutePath());
        }
        try (ObjectStore store = Backends.objectStore("file://" + dir.resolve("other"), S3Options.DEFAULTS, CLOCK)) {
            assertThat(store.describe()).endsWith("other");
        }
    }

    @Test
    void sqliteUrlsOpenTheSqliteMetadataStore() {
        try (MetadataStore store = Backends.metadataStore("sqlite:" + dir.resolve("metadata.db"), CLOCK)) {
            assertThat(store.describe()).contains("metadata.db");
        }
    }

    @Test
    void aBadPostgresqlUrlSaysWhatIsWrongWithoutThePassword() {
        assertThatThrownBy(() -> Backends.metadataStore("postgresql://floe:hunter2@/floe", CLOCK))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no host")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> Backends.objectStore("postgresql://db.example/floe", S3Options.DEFAULTS, CLOCK))
                .hasMessage("postgresql://db.example/floe names a metadata store, not an object store");
    }

    @Test
    void aPostgresqlServerThatDoesNotAnswerFailsTheOpenWithItsLocation() throws IOException {
        int port = closedPort();
        String url = "postgresql://floe:hunter2@127.0.0.1:" + port + "/floe";

        assertThatThrownBy(() -> Backends.metadataStore(url, CLOCK))
                .isInstanceOf(MetadataStoreException.class)
                .hasMessageContaining("127.0.0.1:" + port)
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void anS3EndpointWhereNothingListensFailsTheOpen() throws IOException {
        URI nowhere = URI.create("http://127.0.0.1:" + closedPort());
        S3Options s3 = new S3Options(
                Optional.of(nowhere), "us-east-1", true, Optional.of(new StaticCredentials("id", "secret-value")));

        assertThatThrownBy(() -> Backends.objectStore("s3://floe-data/cluster-1", s3, CLOCK))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageStartingWith(
                        "cannot reach the object store at endpoint " + nowhere + " to check bucket floe-data")
                .hasMessageNotContaining("secret-value");
    }

    @Test
    void s3UrlsAreValidatedBeforeAnythingOpens() {
        assertThatThrownBy(() -> Backends.checkObjectsUrl("s3://floe_data/x", S3Options.DEFAULTS))
                .hasMessageContaining("is not an s3://bucket/prefix URL");
        assertThatThrownBy(() -> Backends.checkObjectsUrl("s3://ab/x", S3Options.DEFAULTS))
                .hasMessageContaining("bucket name 'ab' is not a valid S3 bucket name");
        assertThatThrownBy(() -> Backends.checkObjectsUrl("s3://floe-data/a//b", S3Options.DEFAULTS))
                .hasMessageContaining("key prefix");
        assertThatThrownBy(() -> Backends.checkMetadataUrl("s3://floe-data"))
                .hasMessage("s3://floe-data names an object store, not a metadata store");
        Backends.checkObjectsUrl("s3://floe-data/cluster-1/", S3Options.DEFAULTS);
        Backends.checkMetadataUrl("postgres://floe@db.example/floe?sslmode=require");
    }

    @Test
    void existingStoresAreNotCreated() {
        Path missing = dir.resolve("nothing-here");

        assertThatThrownBy(() -> Backends.existingMetadataStore("sqlite:" + missing.resolve("metadata.db"), CLOCK))
                .isInstanceOf(MetadataStoreException.class)
                .hasMessage("no metadata store at " + missing.resolve("metadata.db") + ": the file does not exist");
        assertThatThrownBy(() -> Backends.existingObjectStore("file:" + missing, S3Options.DEFAULTS, CLOCK))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessage("no object store at " + missing + ": the directory does not exist");
        assertThat(missing).doesNotExist();
    }

    @Test
    void redactHidesPasswordsAndParameters() {
        assertThat(Backends.redact("postgresql://floe:hunter2@db:5432/floe"))
                .isEqualTo("postgresql://floe:****@db:5432/floe");
        assertThat(Backends.redact("postgresql://db/floe?user=floe&password=hunter2"))
                .isEqualTo("postgresql://db/floe?...");
        assertThat(Backends.redact("postgresql://floe@db/floe")).isEqualTo("postgresql://floe@db/floe");
        assertThat(Backends.redact("sqlite:/var/lib/floe/metadata.db")).isEqualTo("sqlite:/var/lib/floe/metadata.db");
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } // closed: connections to the port are refused
    }

    @Test
    void rejectsUnknownSchemesAndTheWrongKindOfStore() {
        assertThatThrownBy(() -> Backends.objectStore("ftp://host/x", S3Options.DEFAULTS, CLOCK))
                .hasMessage("unknown object store scheme 'ftp' in ftp://host/x");
        assertThatThrownBy(() -> Backends.metadataStore("file:/tmp/x", CLOCK))
                .hasMessage("file:/tmp/x names an object store, not a metadata store");
        assertThatThrownBy(() -> Backends.objectStore("/just/a/path", S3Options.DEFAULTS, CLOCK))
                .hasMessageContaining("is not a store URL");
        assertThatThrownBy(() -> Backends.objectStore("file://host/x", S3Options.DEFAULTS, CLOCK))
                .hasMessage("file://host/x names a host; only local paths are supported");
    }
}
