package io.floe.tableflow.table;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * Where keys have their current rows in one snapshot of an upsert table, and the deletion vector of
 * each data file those rows are in: what a round needs to hide the rows its keys replace. Either the
 * job's in-memory {@link KeyIndex} of every key, or a {@link KeyLookup} of just the round's keys.
 */
sealed interface KeyRows permits KeyIndex, KeyLookup.Found {

    /**
     * A row of the table: its data file and position there, and its place in the log, which settles
     * which of two rows of one key is the newer.
     */
    record Location(DataFile file, long position, int partition, long offset) {

        boolean newerThan(Location other) {
            return partition != other.partition ? partition > other.partition : offset > other.offset;
        }
    }

    /** The key's current row, if it has one (of the keys this was made for). */
    Optional<Location> find(ByteBuffer key);

    /** The deletion vector of a data file, or null when none of its rows is deleted. */
    DeleteFile vectorOf(String dataFile);

    /**
     * Rows that hold a key another, newer row holds too (none in a table only Tableflow wrote), for the
     * round to delete.
     */
    List<Location> duplicates();
}
