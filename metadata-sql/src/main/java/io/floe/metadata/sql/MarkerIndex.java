package io.floe.metadata.sql;

import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads of {@code txn_markers}: the markers a fetch serves among the batches, and the abort markers
 * as the index of aborted transactions. Both are range scans of the primary key (partition id,
 * marker offset).
 */
final class MarkerIndex {

    private MarkerIndex() {}

    static List<TransactionMarker> markers(
            Connection connection, TopicPartition topicPartition, long partitionId, long fromOffset, int max)
            throws SQLException {
        List<TransactionMarker> markers = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT marker_offset, producer_id, producer_epoch,"
                + " committed, first_offset, coordinator_epoch, marker_timestamp FROM txn_markers"
                + " WHERE partition_id = ? AND marker_offset >= ? ORDER BY marker_offset LIMIT ?")) {
            select.setLong(1, partitionId);
            select.setLong(2, fromOffset);
            select.setInt(3, max);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    markers.add(new TransactionMarker(
                            topicPartition,
                            rows.getLong(1),
                            rows.getLong(2),
                            rows.getShort(3),
                            rows.getShort(4) == 1,
                            rows.getLong(5),
                            rows.getInt(6),
                            rows.getLong(7)));
                }
            }
        }
        return markers;
    }

    /** Abort markers at or after {@code fromOffset} whose transactions began before {@code toOffset}, by first offset. */
    static List<AbortedTransaction> aborted(Connection connection, long partitionId, long fromOffset, long toOffset)
            throws SQLException {
        List<AbortedTransaction> aborted = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT producer_id, first_offset, marker_offset"
                + " FROM txn_markers WHERE partition_id = ? AND marker_offset >= ? AND committed = 0"
                + " AND first_offset < ? ORDER BY first_offset, marker_offset")) {
            select.setLong(1, partitionId);
            select.setLong(2, fromOffset);
            select.setLong(3, toOffset);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    aborted.add(new AbortedTransaction(rows.getLong(1), rows.getLong(2), rows.getLong(3)));
                }
            }
        }
        return aborted;
    }
}
