package io.floe.tableflow.table;

import io.floe.tableflow.rows.UpsertKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Where every key's current row is in an upsert table, as of one snapshot, held in memory: the data
 * file and the row's position in it, and the deletion vector each data file has. Built by reading the
 * key columns of the table's live rows (deletes applied), at most a given number of keys, then kept up
 * to date by the job's own commits; a snapshot the job did not make (compaction, another writer, an
 * unknown commit outcome) makes the job build it again.
 *
 * <p>A key found in two live rows (a table written by something else) keeps the newer row; the
 * others are {@link #duplicates} for the next round to delete.
 */
final class KeyIndex implements KeyRows {

    private final Map<ByteBuffer, Location> rows = new HashMap<>();
    private final Map<String, DeleteFile> vectors = new HashMap<>();
    private final List<Location> duplicates = new ArrayList<>();
    private final UpsertKey key;
    private long snapshotId;

    private KeyIndex(UpsertKey key, long snapshotId) {
        this.key = key;
        this.snapshotId = snapshotId;
    }

    /**
     * The index of {@code table}'s current snapshot (empty for a table without one), or nothing when the
     * table has more than {@code maxKeys} keys: the build stops there.
     */
    static Optional<KeyIndex> build(Table table, UpsertKey key, long maxKeys) {
        Snapshot snapshot = table.currentSnapshot();
        if (snapshot == null) {
            return Optional.of(new KeyIndex(key, -1));
        }
        KeyIndex index = new KeyIndex(key, snapshot.snapshotId());
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                for (DeleteFile delete : task.deletes()) {
                    if (ContentFileUtil.isDV(delete)) {
                        index.vectors.put(task.file().location(), delete);
                    }
                }
                KeyColumn.read(table, key, task, (rowKey, row) -> index.add(rowKey, row) <= maxKeys);
                if (index.rows.size() > maxKeys) {
                    return Optional.empty();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the key index of " + table.name(), e);
        }
        return Optional.of(index);
    }

    /** Adds a row read from the table and returns how many keys the index holds now. */
    private int add(ByteBuffer key, Location row) {
        Location held = rows.get(key);
        if (held == null) {
            rows.put(key, row);
        } else if (row.newerThan(held)) {
            duplicates.add(rows.put(key, row));
        } else {
            duplicates.add(row);
        }
        return rows.size();
    }

    /** The snapshot this index describes. */
    long snapshotId() {
        return snapshotId;
    }

    /** The key its keys are of (a change of the key columns' types changes every key). */
    UpsertKey key() {
        return key;
    }

    @Override
    public Optional<Location> find(ByteBuffer key) {
        return Optional.ofNullable(rows.get(key));
    }

    @Override
    public DeleteFile vectorOf(String dataFile) {
        return vectors.get(dataFile);
    }

    @Override
    public List<Location> duplicates() {
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
}
