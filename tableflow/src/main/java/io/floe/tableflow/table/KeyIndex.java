package io.floe.tableflow.table;

import io.floe.tableflow.rows.Rows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Where each key's current row is in an upsert table, as of one snapshot: the data file and the
 * row's position in it, and the deletion vector each data file has. Built by reading the key column
 * of the table's live rows (deletes applied), then kept up to date by the job's own commits; a
 * snapshot the job did not make (compaction, another writer, an unknown commit outcome) makes the
 * job build it again.
 *
 * <p>A key found in two live rows (a table written by something else) keeps the row with the
 * greatest {@code (kafka_partition, kafka_offset)}; the others are {@link #duplicates} for the next
 * round to delete.
 */
final class KeyIndex {

    /** A row of the table: its data file and its position there. */
    record Location(DataFile file, long position) {}

    private final Map<ByteBuffer, Location> rows;
    private final Map<ByteBuffer, long[]> order;
    private final Map<String, DeleteFile> vectors;
    private final List<Location> duplicates;
    private long snapshotId;

    private KeyIndex(
            Map<ByteBuffer, Location> rows,
            Map<ByteBuffer, long[]> order,
            Map<String, DeleteFile> vectors,
            List<Location> duplicates,
            long snapshotId) {
        this.rows = rows;
        this.order = order;
        this.vectors = vectors;
        this.duplicates = duplicates;
        this.snapshotId = snapshotId;
    }

    /** The index of {@code table}'s current snapshot (empty for a table without one). */
    static KeyIndex build(Table table) {
        Snapshot snapshot = table.currentSnapshot();
        KeyIndex index = new KeyIndex(new HashMap<>(), new HashMap<>(), new HashMap<>(), new ArrayList<>(), -1);
        if (snapshot == null) {
            return index;
        }
        index.snapshotId = snapshot.snapshotId();
        Schema projected = new Schema(
                table.schema().findField(Rows.KEY),
                table.schema().findField(Rows.PARTITION),
                table.schema().findField(Rows.OFFSET),
                MetadataColumns.ROW_POSITION);
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                index.read(table, task, projected);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the key index of " + table.name(), e);
        }
        index.order.clear(); // only needed to settle duplicates while building
        return index;
    }

    private void read(Table table, FileScanTask task, Schema projected) throws IOException {
        DataFile file = task.file();
        for (DeleteFile delete : task.deletes()) {
            if (ContentFileUtil.isDV(delete)) {
                vectors.put(file.location(), delete);
            }
        }
        GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, table.schema(), projected);
        Schema required = deletes.requiredSchema();
        try (CloseableIterable<Record> records =
                deletes.filter(Parquet.read(table.io().newInputFile(file.location(), file.fileSizeInBytes()))
                        .project(required)
                        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(required, fileSchema))
                        .build())) {
            for (Record record : records) {
                ByteBuffer key = (ByteBuffer) record.getField(Rows.KEY);
                if (key == null) {
                    continue; // not a row the upsert job wrote: no key can reach it
                }
                long[] position = {(Integer) record.getField(Rows.PARTITION), (Long) record.getField(Rows.OFFSET)};
                Location location = new Location(file, (Long) record.getField(MetadataColumns.ROW_POSITION.name()));
                long[] held = order.get(key);
                if (held == null) {
                    rows.put(key, location);
                    order.put(key, position);
                } else if (compare(position, held) > 0) {
                    duplicates.add(rows.put(key, location));
                    order.put(key, position);
                } else {
                    duplicates.add(location);
                }
            }
        }
    }

    private static int compare(long[] a, long[] b) {
        return a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]);
    }

    /** The snapshot this index describes. */
    long snapshotId() {
        return snapshotId;
    }

    Optional<Location> find(ByteBuffer key) {
        return Optional.ofNullable(rows.get(key));
    }

    /** The deletion vector of a data file, or null when none of its rows is deleted. */
    DeleteFile vectorOf(String dataFile) {
        return vectors.get(dataFile);
    }

    /** Rows that hold a key another, newer row holds too (none in a table only Tableflow wrote). */
    List<Location> duplicates() {
        return List.copyOf(duplicates);
    }

    int size() {
        return rows.size();
    }

    /** The index after the job's commit {@code snapshotId} of {@code round}. */
    void apply(UpsertRound.Written round, long newSnapshotId) {
        round.deleted().forEach(rows::remove);
        rows.putAll(round.rows());
        for (DeleteFile vector : round.deleteFiles()) {
            vectors.put(vector.referencedDataFile(), vector);
        }
        duplicates.clear();
        snapshotId = newSnapshotId;
    }

    /** Keys of {@code rows}, for tests. */
    Collection<ByteBuffer> keys() {
        return rows.keySet();
    }

    /** The schema field of the key column, for callers that check a table can be indexed. */
    static Types.NestedField keyField(Schema schema) {
        return schema.findField(Rows.KEY);
    }
}
