package io.floe.tableflow.table;

import io.floe.tableflow.rows.UpsertKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

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
final class KeyIndex extends KeyRows {

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
                index.takeVector(task);
                KeyColumn.read(table, key, task, (rowKey, row) -> {
                    index.take(rowKey, row);
                    return index.size() <= maxKeys;
                });
                if (index.size() > maxKeys) {
                    return Optional.empty();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the key index of " + table.name(), e);
        }
        return Optional.of(index);
    }

    /** The snapshot this index describes. */
    long snapshotId() {
        return snapshotId;
    }

    /** The key its keys are of (a change of the key columns' types changes every key). */
    UpsertKey key() {
        return key;
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
