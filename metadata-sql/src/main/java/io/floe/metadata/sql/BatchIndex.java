package io.floe.metadata.sql;

import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.UnknownTopicException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads of partitions' markers and batch rows. Each method first resolves the partition row (its id
 * and log start) and then reads batch rows by partition id, so every batch query is one index range
 * scan; the caller runs both in one read transaction.
 */
final class BatchIndex {

    /**
     * The batches of partition {@code ?1} with {@code last_offset >= ?3}, as a range of the primary
     * key: batches never overlap, so they are the batch starting at or before the offset (if it
     * reaches it) and every later one. This spares an index on {@code last_offset}, which would cost
     * every commit a page write per partition. Parameters: partition id, partition id, offset, offset.
     */
    private static final String FROM_OFFSET = " WHERE partition_id = ? AND base_offset >= COALESCE("
            + "(SELECT MAX(base_offset) FROM batches WHERE partition_id = ? AND base_offset <= ?), 0)"
            + " AND last_offset >= ?";

    private static final String COORDINATES =
            "SELECT base_offset, last_offset, object_key, byte_position, byte_length, max_timestamp FROM batches"
                    + FROM_OFFSET;

    /** A partition's row: its id in the batch tables and its markers. */
    record PartitionRow(long id, LogOffsets offsets) {}

    LogOffsets offsets(Connection connection, TopicPartition topicPartition) throws SQLException {
        Optional<PartitionRow> partition = partition(connection, topicPartition, true);
        if (partition.isPresent()) {
            return partition.get().offsets();
        }
        throw new UnknownTopicException(
                topicExists(connection, topicPartition.topic()) ? topicPartition.toString() : topicPartition.topic());
    }

    /** Every partition whose oldest open transaction holds its last stable offset below its high watermark. */
    Map<TopicPartition, LogOffsets> unstableLogs(Connection connection) throws SQLException {
        Map<TopicPartition, LogOffsets> unstable = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT t.name, p.partition_index,"
                        + " p.log_start_offset, p.next_offset, MIN(s.txn_first_offset) FROM producer_state s"
                        + " JOIN partitions p ON p.id = s.partition_id JOIN topics t ON t.id = p.topic_id"
                        + " WHERE s.txn_first_offset IS NOT NULL"
                        + " GROUP BY t.name, p.partition_index, p.log_start_offset, p.next_offset");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                long logStart = rows.getLong(3);
                long highWatermark = rows.getLong(4);
                long stableOffset = Math.max(logStart, Math.min(rows.getLong(5), highWatermark));
                if (stableOffset < highWatermark) {
                    unstable.put(
                            new TopicPartition(rows.getString(1), rows.getInt(2)),
                            new LogOffsets(logStart, stableOffset, highWatermark));
                }
            }
        }
        return unstable;
    }

    List<BatchCoordinate> batches(Connection connection, TopicPartition topicPartition, long fromOffset, int maxBatches)
            throws SQLException {
        Optional<PartitionRow> partition = partition(connection, topicPartition);
        if (partition.isEmpty()) {
            return List.of();
        }
        long id = partition.get().id();
        long from = Math.max(fromOffset, partition.get().offsets().logStartOffset());
        String sql = COORDINATES + " ORDER BY base_offset LIMIT ?";
        return query(connection, topicPartition, sql, id, id, from, from, maxBatches);
    }

    Optional<BatchCoordinate> firstAtOrAfter(Connection connection, TopicPartition topicPartition, long timestamp)
            throws SQLException {
        Optional<PartitionRow> partition = partition(connection, topicPartition);
        if (partition.isEmpty()) {
            return Optional.empty();
        }
        String sql = COORDINATES + " AND max_timestamp >= ? ORDER BY base_offset LIMIT 1";
        long id = partition.get().id();
        long logStart = partition.get().offsets().logStartOffset();
        return first(query(connection, topicPartition, sql, id, id, logStart, logStart, timestamp));
    }

    Optional<BatchCoordinate> withMaxTimestamp(Connection connection, TopicPartition topicPartition)
            throws SQLException {
        Optional<PartitionRow> partition = partition(connection, topicPartition);
        if (partition.isEmpty()) {
            return Optional.empty();
        }
        String sql = COORDINATES + " ORDER BY max_timestamp DESC, base_offset LIMIT 1";
        long id = partition.get().id();
        long logStart = partition.get().offsets().logStartOffset();
        return first(query(connection, topicPartition, sql, id, id, logStart, logStart));
    }

    private static Optional<PartitionRow> partition(Connection connection, TopicPartition topicPartition)
            throws SQLException {
        return partition(connection, topicPartition, false);
    }

    /**
     * The partition's row; with {@code stable}, its last stable offset too: the first offset of its
     * oldest open transaction (the partial index of open transactions), never below the log start.
     */
    static Optional<PartitionRow> partition(Connection connection, TopicPartition topicPartition, boolean stable)
            throws SQLException {
        String oldestOpen = stable
                ? ", (SELECT MIN(s.txn_first_offset) FROM producer_state s WHERE s.partition_id = p.id"
                        + " AND s.txn_first_offset IS NOT NULL)"
                : "";
        try (PreparedStatement select = connection.prepareStatement("SELECT p.id, p.log_start_offset, p.next_offset"
                + oldestOpen
                + " FROM partitions p JOIN topics t ON t.id = p.topic_id WHERE t.name = ? AND p.partition_index = ?")) {
            select.setString(1, topicPartition.topic());
            select.setInt(2, topicPartition.partition());
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                long logStart = rows.getLong(2);
                long highWatermark = rows.getLong(3);
                long stableOffset = highWatermark;
                if (stable) {
                    long open = rows.getLong(4);
                    if (!rows.wasNull()) {
                        stableOffset = Math.max(logStart, Math.min(open, highWatermark));
                    }
                }
                return Optional.of(
                        new PartitionRow(rows.getLong(1), new LogOffsets(logStart, stableOffset, highWatermark)));
            }
        }
    }

    /**
     * The partition's batches and transaction markers with {@code lastOffset >= fromOffset}, merged in
     * offset order, at most {@code maxEntries}: the first {@code maxEntries} of each kind hold the first
     * {@code maxEntries} of both.
     */
    List<LogEntry> entries(Connection connection, TopicPartition topicPartition, long fromOffset, int maxEntries)
            throws SQLException {
        Optional<PartitionRow> partition = partition(connection, topicPartition);
        if (partition.isEmpty()) {
            return List.of();
        }
        long id = partition.get().id();
        long from = Math.max(fromOffset, partition.get().offsets().logStartOffset());
        List<BatchCoordinate> batches = query(
                connection,
                topicPartition,
                COORDINATES + " ORDER BY base_offset LIMIT ?",
                id,
                id,
                from,
                from,
                maxEntries);
        List<TransactionMarker> markers = MarkerIndex.markers(connection, topicPartition, id, from, maxEntries);
        if (markers.isEmpty()) {
            return List.copyOf(batches);
        }
        List<LogEntry> merged = new ArrayList<>(Math.min(maxEntries, batches.size() + markers.size()));
        int b = 0;
        int m = 0;
        while (merged.size() < maxEntries && (b < batches.size() || m < markers.size())) {
            boolean batchFirst = m == markers.size()
                    || (b < batches.size()
                            && batches.get(b).baseOffset() < markers.get(m).offset());
            merged.add(batchFirst ? batches.get(b++) : markers.get(m++));
        }
        return merged;
    }

    /** The partition's aborted transactions meeting {@code [fromOffset, toOffset)}; empty for an unknown partition. */
    List<AbortedTransaction> aborted(
            Connection connection, TopicPartition topicPartition, long fromOffset, long toOffset) throws SQLException {
        Optional<PartitionRow> partition = partition(connection, topicPartition);
        if (partition.isEmpty()) {
            return List.of();
        }
        long logStart = partition.get().offsets().logStartOffset();
        if (fromOffset < logStart) {
            throw new OffsetOutOfRangeException("aborted transactions of " + topicPartition + " from offset "
                    + fromOffset + " are no longer known: the log start is " + logStart);
        }
        if (toOffset <= fromOffset) {
            return List.of();
        }
        return MarkerIndex.aborted(connection, partition.get().id(), fromOffset, toOffset);
    }

    private static boolean topicExists(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT 1 FROM topics WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    private static List<BatchCoordinate> query(
            Connection connection, TopicPartition topicPartition, String sql, long... parameters) throws SQLException {
        List<BatchCoordinate> batches = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                select.setLong(i + 1, parameters[i]);
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    batches.add(new BatchCoordinate(
                            topicPartition,
                            rows.getLong(1),
                            rows.getLong(2),
                            new ObjectKey(rows.getString(3)),
                            new ByteRange(rows.getLong(4), rows.getInt(5)),
                            rows.getLong(6)));
                }
            }
        }
        return batches;
    }

    private static Optional<BatchCoordinate> first(List<BatchCoordinate> batches) {
        return batches.stream().findFirst();
    }
}
