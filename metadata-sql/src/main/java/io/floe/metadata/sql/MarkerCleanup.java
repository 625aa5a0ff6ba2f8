package io.floe.metadata.sql;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MarkerCleaning;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Key compaction's removal of transaction markers ({@code LogRetention#cleanMarkers}), by Kafka's
 * cleaner rules ({@code CleanedTransactionMetadata}): a marker may go once no batch of its producer is
 * left between its transaction's first offset and itself, and only after its delete horizon, which the
 * first call that finds it so sets. Statements are range scans of the primary keys of
 * {@code txn_markers} and {@code batches}; rows are changed in offset order, and the log rewrites
 * counter is taken last, as every rewrite takes it.
 */
final class MarkerCleanup {

    private static final String IN_PAGE = " WHERE partition_id = ? AND marker_offset >= ? AND marker_offset < ?";

    /**
     * No batch of the marker's producer between its transaction's first offset and itself. Batches are
     * only ever appended above the high watermark, so once true this stays true.
     */
    private static final String NOTHING_LEFT = " AND NOT EXISTS (SELECT 1 FROM batches b"
            + " WHERE b.partition_id = txn_markers.partition_id AND b.base_offset >= txn_markers.first_offset"
            + " AND b.base_offset < txn_markers.marker_offset AND b.producer_id = txn_markers.producer_id)";

    private MarkerCleanup() {}

    static MarkerCleaning clean(
            Connection connection,
            TopicPartition topicPartition,
            long fromOffset,
            long toOffset,
            long nowMs,
            long horizonMs,
            int maxMarkers)
            throws SQLException {
        if (maxMarkers < 1) {
            throw new IllegalArgumentException("maxMarkers " + maxMarkers + " must be at least 1");
        }
        Optional<BatchIndex.PartitionRow> partition = BatchIndex.partition(connection, topicPartition, false);
        if (partition.isEmpty() || fromOffset >= toOffset) {
            return new MarkerCleaning(Math.max(fromOffset, toOffset), 0, Long.MAX_VALUE);
        }
        long id = partition.get().id();
        long end = pageEnd(connection, id, fromOffset, toOffset, maxMarkers);
        int removed;
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM txn_markers" + IN_PAGE + " AND delete_horizon IS NOT NULL AND delete_horizon <= ?")) {
            bindPage(delete, id, fromOffset, end);
            delete.setLong(4, nowMs);
            removed = delete.executeUpdate();
        }
        try (PreparedStatement stamp = connection.prepareStatement(
                "UPDATE txn_markers SET delete_horizon = ?" + IN_PAGE + " AND delete_horizon IS NULL" + NOTHING_LEFT)) {
            stamp.setLong(1, horizonMs);
            stamp.setLong(2, id);
            stamp.setLong(3, fromOffset);
            stamp.setLong(4, end);
            stamp.executeUpdate();
        }
        long earliest = Long.MAX_VALUE;
        try (PreparedStatement select =
                connection.prepareStatement("SELECT MIN(delete_horizon) FROM txn_markers" + IN_PAGE)) {
            bindPage(select, id, fromOffset, end);
            try (ResultSet rows = select.executeQuery()) {
                if (rows.next()) {
                    long min = rows.getLong(1);
                    if (!rows.wasNull()) {
                        earliest = min;
                    }
                }
            }
        }
        if (removed > 0) {
            Counters.increment(connection, Counters.LOG_REWRITES);
        }
        return new MarkerCleaning(end, removed, earliest);
    }

    /** The end of the page of at most {@code maxMarkers} markers from {@code fromOffset}: past its last marker. */
    private static long pageEnd(Connection connection, long partitionId, long fromOffset, long toOffset, int maxMarkers)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT marker_offset FROM txn_markers" + IN_PAGE + " ORDER BY marker_offset LIMIT 1 OFFSET ?")) {
            bindPage(select, partitionId, fromOffset, toOffset);
            select.setInt(4, maxMarkers - 1);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getLong(1) + 1 : toOffset;
            }
        }
    }

    private static void bindPage(PreparedStatement statement, long partitionId, long from, long to)
            throws SQLException {
        statement.setLong(1, partitionId);
        statement.setLong(2, from);
        statement.setLong(3, to);
    }
}
