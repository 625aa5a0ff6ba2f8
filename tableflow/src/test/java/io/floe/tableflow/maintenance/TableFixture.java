package io.floe.tableflow.maintenance;

import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectKey;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.rows.RawValueDecoder;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.PinnedTable;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * A Tableflow table (raw values, the job's table properties) on a real JDBC catalog on SQLite and a local
 * object store in one directory, with rounds written the way the job writes them.
 */
final class TableFixture implements AutoCloseable {

    static final Schema SCHEMA = Rows.tableSchema(new RawValueDecoder().valueType());
    static final UUID TOPIC_ID = UUID.fromString("6f1c2b9e-0c1d-4a8e-9f00-000000000001");
    static final Instant DAY0 = Instant.parse("2026-01-01T00:00:00Z");

    final Path objectsDir;
    final LocalObjectStore objects;
    final Catalog catalog;
    final TableIdentifier id = TableIdentifier.of("floe", "events");
    private final Random random = new Random(20260101);
    private final TreeMap<Integer, Long> next = new TreeMap<>();
    private long taskId;

    TableFixture(Path dir, boolean dayPartitioned) {
        objectsDir = dir.resolve("objects");
        objects = new LocalObjectStore(objectsDir);
        ObjectLocations locations = new ObjectLocations("file:" + objectsDir.toAbsolutePath());
        catalog = IcebergCatalogs.jdbc(
                "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath(),
                null,
                null,
                locations.root() + "/tables",
                new ObjectStoreFileIO(objects, locations, dir.resolve("spool")));
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("floe"));
        PartitionSpec spec = dayPartitioned
                ? PartitionSpec.builderFor(SCHEMA).day(Rows.TIMESTAMP).build()
                : PartitionSpec.unpartitioned();
        catalog.buildTable(id, SCHEMA)
                .withPartitionSpec(spec)
                .withProperties(TableCatalog.TABLE_PROPERTIES)
                .create();
    }

    Table table() {
        return catalog.loadTable(id);
    }

    /** One round as the job commits it: a pinned append of new records with the advanced watermark. */
    void round(int partitions, int rowsPerPartition, int valueBytes) {
        round(PinnedTable.pin(table()), partitions, rowsPerPartition, valueBytes);
    }

    /** A round committed on {@code pinned} (a table pinned earlier: a stale writer). */
    void round(Table pinned, int partitions, int rowsPerPartition, int valueBytes) {
        FanoutDataWriter<Record> writer = writer(pinned);
        PartitionKey key = new PartitionKey(pinned.spec(), pinned.schema());
        InternalRecordWrapper wrapper =
                new InternalRecordWrapper(pinned.schema().asStruct());
        Map<Integer, Long> advanced = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            long first = next.getOrDefault(p, 0L);
            for (long offset = first; offset < first + rowsPerPartition; offset++) {
                GenericRecord row = row(pinned.schema(), p, offset, valueBytes);
                key.partition(wrapper.wrap(row));
                writer.write(row, pinned.spec(), pinned.spec().isUnpartitioned() ? null : key);
            }
            advanced.put(p, first + rowsPerPartition);
        }
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Watermark mark = Watermark.of(pinned).orElse(Watermark.empty(TOPIC_ID)).with(advanced);
        AppendFiles append = pinned.newAppend();
        writer.result().dataFiles().forEach(append::appendFile);
        append.set(Watermark.SUMMARY_PROPERTY, mark.toJson());
        append.commit();
        next.putAll(advanced);
    }

    /** Rows spread over three days (the partitions of a day-partitioned table), values random. */
    private GenericRecord row(Schema schema, int partition, long offset, int valueBytes) {
        GenericRecord row = GenericRecord.create(schema);
        row.setField(Rows.PARTITION, partition);
        row.setField(Rows.OFFSET, offset);
        row.setField(
                Rows.TIMESTAMP,
                DAY0.plus(Duration.ofDays(offset % 3)).plusMillis(offset).atOffset(ZoneOffset.UTC));
        byte[] value = new byte[valueBytes];
        random.nextBytes(value);
        row.setField(RawValueDecoder.COLUMN, ByteBuffer.wrap(value));
        return row;
    }

    private FanoutDataWriter<Record> writer(Table pinned) {
        GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(pinned)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(pinned.schema())
                .build();
        OutputFileFactory files = OutputFileFactory.builderFor(pinned, 0, ++taskId)
                .format(FileFormat.PARQUET)
                .build();
        return new FanoutDataWriter<>(factory, files, pinned.io(), 128L << 20);
    }

    /** Every row of the table, ordered by (kafka_partition, kafka_offset). */
    List<Record> rows() {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table()).build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rows.sort(Comparator.comparing((Record row) -> (Integer) row.getField(Rows.PARTITION))
                .thenComparing(row -> (Long) row.getField(Rows.OFFSET)));
        return rows;
    }

    /** The current snapshot's data files. */
    List<DataFile> dataFiles() {
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table().newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The current snapshot's data files by partition (its string form). */
    Map<String, List<DataFile>> dataFilesByPartition() {
        return dataFiles().stream().collect(Collectors.groupingBy(file -> String.valueOf(file.partition())));
    }

    /** Keys of every object under the table's location. */
    Set<String> keys() {
        return objects.list("tables/floe/events/").stream()
                .map(info -> info.key().value())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The object key of a table file location. */
    String key(String location) {
        return new ObjectLocations("file:" + objectsDir.toAbsolutePath())
                .key(location)
                .value();
    }

    /** Stores a file under the table with its modification time set to {@code modified}. */
    void putFile(String relativeToTable, Instant modified) {
        String key = "tables/floe/events/" + relativeToTable;
        objects.put(new ObjectKey(key), ByteBuffer.wrap(new byte[] {1, 2, 3}));
        try {
            Files.setLastModifiedTime(objectsDir.resolve(key), FileTime.from(modified));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws Exception {
        ((AutoCloseable) catalog).close();
        objects.close();
    }
}
