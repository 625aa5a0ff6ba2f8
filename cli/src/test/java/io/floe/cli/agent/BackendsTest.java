package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.ObjectStore;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackendsTest {

    private static final Clock CLOCK = Clock.systemUTC();

    @TempDir
    Path dir;

    @Test
    void fileUrlsOpenTheLocalObjectStore() {
        try (ObjectStore store = Backends.objectStore("file:" + dir.resolve("objects"), CLOCK)) {
            assertThat(store.describe()).isEqualTo("file:" + dir.resolve("objects").toAbsolutePath());
        }
        try (ObjectStore store = Backends.objectStore("file://" + dir.resolve("other"), CLOCK)) {
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
    void plannedBackendsAreNotSupportedYet() {
        assertThatThrownBy(() -> Backends.metadataStore("postgresql://db.example/floe", CLOCK))
                .hasMessage("the postgresql backend is not supported yet: postgresql://db.example/floe");
        assertThatThrownBy(() -> Backends.objectStore("s3://bucket/prefix", CLOCK))
                .hasMessage("the s3 backend is not supported yet: s3://bucket/prefix");
    }

    @Test
    void rejectsUnknownSchemesAndTheWrongKindOfStore() {
        assertThatThrownBy(() -> Backends.objectStore("ftp://host/x", CLOCK))
                .hasMessage("unknown object store scheme 'ftp' in ftp://host/x");
        assertThatThrownBy(() -> Backends.metadataStore("file:/tmp/x", CLOCK))
                .hasMessage("file:/tmp/x names an object store, not a metadata store");
        assertThatThrownBy(() -> Backends.objectStore("/just/a/path", CLOCK))
                .hasMessageContaining("is not a store URL");
        assertThatThrownBy(() -> Backends.objectStore("file://host/x", CLOCK))
                .hasMessage("file://host/x names a host; only local paths are supported");
    }
}
