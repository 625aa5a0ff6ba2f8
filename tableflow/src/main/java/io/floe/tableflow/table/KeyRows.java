package io.floe.tableflow.table;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Where keys have their current rows in one snapshot of an upsert table, and the deletion vector of
 * each data file those rows are in: what a round needs to hide the rows its keys replace. Either the
 * job's in-memory {@link KeyIndex} of every key, or a {@link KeyLookup} of just the round's keys; both
 * fill it the same way, from the key columns of the snapshot's live rows.
 */
abstract sealed class KeyRows permits KeyIndex, KeyLookup.Found {

    /**
     * A row of the table: its data file and position there, and its place in the log, which settles
     * which of two rows of one key is the newer.
     */
    record Location(DataFile file, long position, int partition, long offset) {

        boolean newerThan(Location other) {
            return partition != other.partition ? partition > other.partition : offset > other.offset;
        }
    }

    final Map<ByteBuffer, Location> rows = new HashMap<>();
    final Map<String, DeleteFile> vectors = new HashMap<>();
    final List<Location> duplicates = new ArrayList<>();
    /** The bytes of the keys in {@link #rows}. */
    long keyBytes;

    /** The key's current row, if it has one (of the keys this was made for). */
    final Optional<Location> find(ByteBuffer key) {
        return Optional.ofNullable(rows.get(key));
    }

    /** The deletion vector of a data file, or null when none of its rows is deleted. */
    final DeleteFile vectorOf(String dataFile) {
        return vectors.get(dataFile);
    }

    /**
     * Rows that hold a key another, newer row holds too (none in a table only Tableflow wrote), for the
     * round to delete.
     */
    final List<Location> duplicates() {
        return List.copyOf(duplicates);
    }

    /** Keys that have a row. */
    final int size() {
        return rows.size();
    }

    /** Takes the deletion vector of a planned data file, if it has one. */
    final void takeVector(FileScanTask task) {
        for (DeleteFile delete : task.deletes()) {
            if (ContentFileUtil.isDV(delete)) {
                vectors.put(task.file().location(), delete);
            }
        }
    }

    /** Takes a live row read from the table: of two rows of one key the newer is kept, the older a duplicate. */
    final void take(ByteBuffer key, Location row) {
        Location held = rows.get(key);
        if (held == null) {
            rows.put(key, row);
            keyBytes += key.remaining();
        } else if (row.newerThan(held)) {
            duplicates.add(rows.put(key, row));
        } else {
            duplicates.add(row);
        }
    }
}
