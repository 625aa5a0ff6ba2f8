package io.floe.tableflow.delta;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectKey;
import io.floe.tableflow.io.ObjectLocations;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log replay on a log written by hand as Delta's protocol allows it (Floe's own logs have no deletion
 * vectors yet): deletion vectors by absolute path and by UUID, a file whose deletion vector changes,
 * percent-encoded and absolute paths, and the table's own retention.
 */
class DeltaFileReferencesTest {

    private static final Instant T1 = Instant.parse("2026-06-01T00:00:00Z");
    private static final Instant T2 = T1.plus(Duration.ofDays(3));

    @TempDir
    Path dir;

    @Test
    void tombstonesKeepTheirDataAndDeletionVectorFilesForTheTablesRetention() {
        try (LocalObjectStore store = new LocalObjectStore(dir.resolve("objects"))) {
            ObjectLocations locations =
                    new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
            String table = locations.root() + "/tables/t";
            String puffin = table + "/data/dvs-1.puffin";
            String elsewhere = locations.root() + "/other/e.parquet";
            commit(store, 0, """
                    {"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],\
                    "writerFeatures":["deletionVectors"]}}
                    {"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":\
                    "{\\"type\\":\\"struct\\",\\"fields\\":[{\\"name\\":\\"a\\",\\"type\\":\\"long\\",\
                    \\"nullable\\":true,\\"metadata\\":{}}]}","partitionColumns":[],"configuration":\
                    {"delta.enableDeletionVectors":"true","delta.deletedFileRetentionDuration":"interval 2 days"},\
                    "createdTime":1}}
                    {"add":{"path":"data/a.parquet","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true}}
                    {"add":{"path":"data/b.parquet","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true}}
                    """);
            commit(store, 1, """
                    {"remove":{"path":"data/a.parquet","deletionTimestamp":%d,"dataChange":true}}
                    {"add":{"path":"data/a.parquet","partitionValues":{},"size":10,"modificationTime":1,\
                    "dataChange":true,"deletionVector":{"storageType":"p","pathOrInlineDv":"%s","offset":4,\
                    "sizeInBytes":40,"cardinality":6}}}
                    {"remove":{"path":"data/b.parquet","deletionTimestamp":%d,"dataChange":true}}
                    """.formatted(T1.toEpochMilli(), puffin, T1.toEpochMilli()));
            commit(store, 2, """
                    {"remove":{"path":"data/a.parquet","deletionTimestamp":%d,"dataChange":true,"deletionVector":\
                    {"storageType":"p","pathOrInlineDv":"%s","offset":4,"sizeInBytes":40,"cardinality":6}}}
                    {"add":{"path":"data/a.parquet","partitionValues":{},"size":10,"modificationTime":1,\
                    "dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^",\
                    "offset":1,"sizeInBytes":40,"cardinality":7}}}
                    {"add":{"path":"data/c%%20d.parquet","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true}}
                    {"add":{"path":"%s","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true}}
                    """.formatted(T2.toEpochMilli(), puffin, elsewhere));

            DeltaFileReferences references = DeltaFileReferences.read(
                    new DeltaLogLocation(store, locations, table), T2, new DeltaFileReferences.TombstoneCache());

            assertThat(references.version()).isEqualTo(2);
            assertThat(references.deletedFileRetention()).isEqualTo(Duration.ofDays(2));
            Set<String> live = Set.of(
                    table + "/data/a.parquet",
                    table + "/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin",
                    table + "/data/c d.parquet",
                    elsewhere);
            assertThat(references.liveFiles()).isEqualTo(live);
            assertThat(references.retainedAt(T1.plus(Duration.ofDays(1))))
                    .containsExactlyInAnyOrderElementsOf(union(live, table + "/data/b.parquet", puffin));
            // b was removed at T1, the Puffin file's vector at T2: two days later only the latter stays.
            assertThat(references.retainedAt(T1.plus(Duration.ofDays(2)).plusMillis(1)))
                    .containsExactlyInAnyOrderElementsOf(union(live, puffin));
            assertThat(references.retainedAt(T2.plus(Duration.ofDays(2)))).isEqualTo(live);
        }
    }

    private static Set<String> union(Set<String> set, String... more) {
        java.util.Set<String> all = new java.util.HashSet<>(set);
        all.addAll(Set.of(more));
        return all;
    }

    private static void commit(LocalObjectStore store, long version, String actions) {
        store.put(
                new ObjectKey(String.format(Locale.ROOT, "tables/t/_delta_log/%020d.json", version)),
                ByteBuffer.wrap(actions.getBytes(StandardCharsets.UTF_8)));
    }
}
