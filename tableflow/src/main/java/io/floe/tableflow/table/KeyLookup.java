package io.floe.tableflow.table;

import io.floe.tableflow.rows.UpsertKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Finds the current rows of a round's keys, and nothing else, in the snapshot a round commits on:
 * reads the key columns of the live data files that may hold one of them. A file is skipped when the
 * key columns' bounds in its manifest entry leave out every key, or when the Parquet Bloom filters on the
 * key columns of all its row groups rule out every key ({@link KeyProbe}, {@link KeyBloomFilters}).
 * Memory is the round's keys and the table's list of files, whatever the table's size; the cost is
 * reading the key columns of the files that may hold a key (for keys spread over the whole table, every
 * file; for new keys, only the files whose Bloom filters cannot rule them out).
 */
final class KeyLookup {

    private KeyLookup() {}

    /** What a lookup found, and what it read to find it. */
    static final class Found extends KeyRows {
        private int files;
        private int filesRead;
        private long rowsRead;

        /** The snapshot's data files. */
        int files() {
            return files;
        }

        /** Data files whose key column was read (some rows of them decoded). */
        int filesRead() {
            return filesRead;
        }

        /** Live rows decoded. */
        long rowsRead() {
            return rowsRead;
        }
    }

    /** The current rows of {@code keys} (of {@code key}) in {@code table}'s current snapshot. */
    static Found find(Table table, UpsertKey key, Set<ByteBuffer> keys) {
        Found found = new Found();
        Snapshot snapshot = table.currentSnapshot();
        if (snapshot == null || keys.isEmpty()) {
            return found;
        }
        KeyProbe probe = new KeyProbe(key, keys);
        try (CloseableIterable<FileScanTask> tasks = table.newScan()
                .useSnapshot(snapshot.snapshotId())
                .includeColumnStats(probe.columnNames())
                .planFiles()) {
            for (FileScanTask task : tasks) {
                found.files++;
                found.takeVector(task);
                DataFile file = task.file();
                int[] candidates = probe.withinBounds(file);
                if (candidates.length == 0
                        || !KeyBloomFilters.mayHoldAny(
                                table.io().newInputFile(file.location(), file.fileSizeInBytes()), probe, candidates)) {
                    continue;
                }
                long decoded = KeyColumn.read(table, key, task, (rowKey, row) -> {
                    if (keys.contains(rowKey)) {
                        found.take(rowKey, row);
                    }
                    return true;
                });
                found.rowsRead += decoded;
                found.filesRead += decoded > 0 ? 1 : 0;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look up keys in " + table.name(), e);
        }
        return found;
    }
}
