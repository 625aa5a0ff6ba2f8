package io.floe.tableflow.delta;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mirror and the delete files of an Iceberg table: a table that gets deletion vectors after its
 * Delta log was created turns Delta's deletion vector feature on in the commit that first needs it,
 * the Delta log then shares the Puffin blobs (and orphan removal keeps their files), and a delete file
 * Delta cannot express (a v2 position delete file) fails the sync without touching the log.
 */
class DeltaVectorsTest {

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    @TempDir
    Path dir;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private long task;

    @Test
    void aTableThatGetsDeletionVectorsLaterTurnsTheFeatureOnAndSharesThePuffinBlobs() {
        try (LocalObjectStore store = new LocalObjectStore(dir.resolve("objects"))) {
            ObjectLocations locations = locations();
            Table table = table(store, locations);
            DataFile data = append(table, 20);
            DeltaMirror mirror = new DeltaMirror(new DeltaMetrics(meters, "t"), new ManualClock());
            assertThat(mirror.sync(table)).isEqualTo(DeltaMirror.Outcome.COMMITTED);
            assertThat(log(store, locations, table)).doesNotContain("deletionVectors");

            table.updateProperties().set(TableProperties.FORMAT_VERSION, "3").commit();
            DeleteFile vector = deletionVector(table, data, 0, 5, 19);
            table.newRowDelta().addDeletes(vector).commit();
            table.refresh();
            assertThat(mirror.sync(table)).isEqualTo(DeltaMirror.Outcome.COMMITTED);

            assertThat(log(store, locations, table))
                    .containsPattern("\"readerFeatures\":\\[[^]]*\"deletionVectors\"")
                    .contains("\"delta.enableDeletionVectors\":\"true\"")
                    .contains("\"sizeInBytes\":" + (vector.contentSizeInBytes() - 8))
                    .contains("\"cardinality\":3")
                    .as("the statistics of the whole file bound the rows left, but not tightly")
                    .contains("\\\"numRecords\\\":20,")
                    .contains("\\\"tightBounds\\\":false");
            List<Map<String, Object>> rows = DeltaReads.deltaRows(store, locations, path(locations, table));
            assertThat(rows)
                    .containsExactlyInAnyOrderElementsOf(DeltaReads.icebergRows(table, icebergRows(table)))
                    .hasSize(17)
                    .noneMatch(row -> Set.of(1L, 6L, 20L).contains((Long) row.get("id")));
            assertThat(DeltaFileReferences.read(table, Instant.now())
                            .orElseThrow()
                            .liveFiles())
                    .as("the files orphan removal keeps")
                    .containsExactlyInAnyOrder(
                            locations.location(locations.key(data.location())),
                            locations.location(locations.key(vector.location())));
        }
    }

    @Test
    void aPositionDeleteFileFailsTheSyncAndLeavesTheLog() {
        try (LocalObjectStore store = new LocalObjectStore(dir.resolve("objects"))) {
            ObjectLocations locations = locations();
            Table table = table(store, locations);
            append(table, 10);
            DeltaMirror mirror = new DeltaMirror(new DeltaMetrics(meters, "t"), new ManualClock());
            assertThat(mirror.sync(table)).isEqualTo(DeltaMirror.Outcome.COMMITTED);
            String before = log(store, locations, table);

            table.newRowDelta()
                    .addDeletes(FileMetadata.deleteFileBuilder(table.spec())
                            .ofPositionDeletes()
                            .withPath(table.location() + "/data/deletes.parquet")
                            .withFormat(FileFormat.PARQUET)
                            .withFileSizeInBytes(100)
                            .withRecordCount(1)
                            .build())
                    .commit();
            table.refresh();
            assertThat(mirror.sync(table)).isEqualTo(DeltaMirror.Outcome.FAILED);
            assertThat(meters.find("floe.tableflow.delta.failures").counter().count())
                    .isOne();
            assertThat(log(store, locations, table)).isEqualTo(before);
        }
    }

    private ObjectLocations locations() {
        return new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
    }

    private Table table(ObjectStore store, ObjectLocations locations) {
        Catalog catalog = IcebergCatalogs.jdbc(
                "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath(),
                null,
                null,
                locations.root() + "/tables",
                new ObjectStoreFileIO(store, locations, dir.resolve("spool")));
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("floe"));
        return catalog.createTable(
                TableIdentifier.of("floe", "t"),
                SCHEMA,
                org.apache.iceberg.PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "2"));
    }

    /** Appends rows with ids 1 to {@code count} in one data file. */
    private DataFile append(Table table, long count) {
        OutputFileFactory files = OutputFileFactory.builderFor(table, 0, ++task)
                .format(FileFormat.PARQUET)
                .build();
        DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET)
                .build()
                .newDataWriter(files.newOutputFile(), table.spec(), null);
        try (writer) {
            for (long id = 1; id <= count; id++) {
                GenericRecord row = GenericRecord.create(SCHEMA);
                row.setField("id", id);
                row.setField("name", "name " + id);
                writer.write(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        DataFile file = writer.toDataFile();
        table.newAppend().appendFile(file).commit();
        return file;
    }

    private DeleteFile deletionVector(Table table, DataFile data, long... positions) {
        BaseDVFileWriter writer = new BaseDVFileWriter(
                OutputFileFactory.builderFor(table, 0, ++task)
                        .format(FileFormat.PUFFIN)
                        .build(),
                path -> null);
        try (writer) {
            for (long position : positions) {
                writer.delete(data.location(), position, table.spec(), null);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writer.result().deleteFiles().get(0);
    }

    private static List<Record> icebergRows(Table table) {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    private static String path(ObjectLocations locations, Table table) {
        return locations.location(locations.key(table.location()));
    }

    private static String log(ObjectStore store, ObjectLocations locations, Table table) {
        StringBuilder text = new StringBuilder();
        for (ObjectInfo info : store.list(locations.keyPrefix(path(locations, table) + "/_delta_log"))) {
            if (info.key().value().endsWith(".json")) {
                text.append(StandardCharsets.UTF_8.decode(store.get(info.key())));
            }
        }
        return text.toString();
    }
}
