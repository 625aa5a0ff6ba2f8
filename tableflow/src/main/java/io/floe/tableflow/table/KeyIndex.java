package io.floe.tableflow.table;

import io.floe.tableflow.rows.UpsertKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
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

    /**
     * Heap bytes an index takes for each key beyond the key's own bytes: the hash map's entry and slot, the
     * key's buffer and array headers, the row's location (about 160 bytes a key of 16 bytes, measured: 177
     * MB for 1.1 million keys).
     */
    static final long ENTRY_BYTES = 144;

    private final UpsertKey key;
    private long snapshotId;

    private KeyIndex(UpsertKey key, long snapshotId) {
        this.key = key;
        this.snapshotId = snapshotId;
    }

    /** The heap bytes an index of {@code keys} keys of {@code keyBytes} bytes together takes, about. */
    static long bytes(long keys, long keyBytes) {
        return keys * ENTRY_BYTES + keyBytes;
    }

    /** The heap bytes this index takes, about. */
    long bytes() {
        return bytes(size(), keyBytes);
    }

    /**
     * The index of {@code table}'s current snapshot (empty for a table without one), or nothing when the
     * table has more than {@code maxKeys} keys or its index would take more than {@code maxBytes}: the
     * build stops there.
     */
    static Optional<KeyIndex> build(Table table, UpsertKey key, long maxKeys, long maxBytes) {
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
                    return index.size() <= maxKeys && index.bytes() <= maxBytes;
                });
                if (index.size() > maxKeys || index.bytes() > maxBytes) {
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
        for (ByteBuffer deleted : round.deleted()) {
            if (rows.remove(deleted) != null) {
                keyBytes -= deleted.remaining();
            }
        }
        round.rows().forEach((rowKey, row) -> {
            if (rows.put(rowKey, row) == null) {
                keyBytes += rowKey.remaining();
            }
        });
        for (DeleteFile vector : round.deleteFiles()) {
            vectors.put(vector.referencedDataFile(), vector);
        }
        duplicates.clear();
        snapshotId = newSnapshotId;
    }
}
