package io.floe.metadata.sql;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ActiveProducer;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.topic.UnknownTopicException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The operator's questions and changes about partitions' logs: moving the log start (DeleteRecords),
 * the producers with state on a partition, and the bytes each partition's log occupies. Each method
 * runs inside the caller's transaction.
 */
final class LogAdministration {

    /** A partition's row: its id in the batch tables and its markers. */
    private record PartitionRow(long id, long logStartOffset, long nextOffset) {}

    /** A producer's state row, with the base offset of its last batch (-1 when none is recorded). */
    private record ProducerRow(
            long producerId, short epoch, int lastSequence, long lastBatchOffset, long txnFirstOffset) {}

    private final Dialect dialect;

    LogAdministration(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Raises the log start to {@code beforeOffset} unless it is there already; returns the log start after. */
    long deleteRecords(Connection connection, TopicPartition topicPartition, long beforeOffset) throws SQLException {
        PartitionRow partition = require(connection, topicPartition, dialect.forUpdate());
        if (beforeOffset < 0 || beforeOffset > partition.nextOffset()) {
            throw new OffsetOutOfRangeException("cannot delete records of " + topicPartition + " before offset "
                    + beforeOffset + ": the offset must lie in [0, " + partition.nextOffset()
                    + "], the high watermark");
        }
        if (beforeOffset <= partition.logStartOffset()) {
            return partition.logStartOffset();
        }
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE partitions SET log_start_offset = ? WHERE id = ? AND log_start_offset < ?")) {
            update.setLong(1, beforeOffset);
            update.setLong(2, partition.id());
            update.setLong(3, beforeOffset);
            update.executeUpdate();
        }
        Counters.increment(connection, Counters.LOG_REWRITES);
        return beforeOffset;
    }

    /**
     * The partition's producer state rows, by producer id, with the max timestamp of each producer's
     * last batch read from the batch index (one keyed read for all of them).
     */
    List<ActiveProducer> producers(Connection connection, TopicPartition topicPartition) throws SQLException {
        PartitionRow partition = require(connection, topicPartition, "");
        List<ProducerRow> rows = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT producer_id, producer_epoch,"
                + " last_sequence, recent_batches, txn_first_offset FROM producer_state WHERE partition_id = ?"
                + " ORDER BY producer_id")) {
            select.setLong(1, partition.id());
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    long txnFirstOffset = result.getLong(5);
                    if (result.wasNull()) {
                        txnFirstOffset = ActiveProducer.NO_TRANSACTION;
                    }
                    rows.add(new ProducerRow(
                            result.getLong(1),
                            result.getShort(2),
                            result.getInt(3),
                            lastBatchOffset(result.getString(4)),
                            txnFirstOffset));
                }
            }
        }
        Map<Long, Long> timestamps = lastTimestamps(connection, partition.id(), rows);
        List<ActiveProducer> producers = new ArrayList<>(rows.size());
        for (ProducerRow row : rows) {
            producers.add(new ActiveProducer(
                    row.producerId(),
                    row.epoch(),
                    row.lastSequence(),
                    timestamps.getOrDefault(row.lastBatchOffset(), ActiveProducer.NO_TIMESTAMP),
                    row.txnFirstOffset()));
        }
        return producers;
    }

    /** Bytes of the batches at or above each partition's log start, by partition index; every partition listed. */
    Map<Integer, Long> partitionSizes(Connection connection, String topic) throws SQLException {
        String topicId = topicId(connection, topic).orElseThrow(() -> new UnknownTopicException(topic));
        Map<Integer, Long> sizes = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT p.partition_index,"
                + " COALESCE(SUM(b.byte_length), 0) FROM partitions p LEFT JOIN batches b"
                + " ON b.partition_id = p.id AND b.last_offset >= p.log_start_offset"
                + " WHERE p.topic_id = ? GROUP BY p.partition_index")) {
            select.setString(1, topicId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    sizes.put(rows.getInt(1), rows.getLong(2));
                }
            }
        }
        return sizes;
    }

    /**
     * The base offset of the newest entry of a {@code recent_batches} column ({@code ProducerHistory}'s
     * {@code baseSequence:lastSequence:baseOffset} entries, oldest first, separated by {@code ;}), or -1.
     */
    static long lastBatchOffset(String recentBatches) {
        if (recentBatches == null || recentBatches.isEmpty()) {
            return -1;
        }
        String newest = recentBatches.substring(recentBatches.lastIndexOf(';') + 1);
        return Long.parseLong(newest.substring(newest.lastIndexOf(':') + 1));
    }

    /** Max timestamps of the producers' last batches, by base offset; batches no longer indexed are missing. */
    private static Map<Long, Long> lastTimestamps(Connection connection, long partitionId, List<ProducerRow> rows)
            throws SQLException {
        List<Long> offsets = rows.stream()
                .map(ProducerRow::lastBatchOffset)
                .filter(offset -> offset >= 0)
                .distinct()
                .toList();
        Map<Long, Long> timestamps = new HashMap<>();
        KeyedSelect.run(
                connection,
                "SELECT base_offset, max_timestamp FROM batches",
                List.of("partition_id", "base_offset"),
                "",
                offsets,
                (statement, index, offset) -> {
                    statement.setLong(index, partitionId);
                    statement.setLong(index + 1, offset);
                },
                row -> timestamps.put(row.getLong(1), row.getLong(2)));
        return timestamps;
    }

    /** The partition's row; the topic is looked up first, so that only the partition row is locked. */
    private static PartitionRow require(Connection connection, TopicPartition topicPartition, String suffix)
            throws SQLException {
        String topicId = topicId(connection, topicPartition.topic())
                .orElseThrow(() -> new UnknownTopicException(topicPartition.topic()));
        try (PreparedStatement select = connection.prepareStatement("SELECT id, log_start_offset, next_offset"
                + " FROM partitions WHERE topic_id = ? AND partition_index = ?" + suffix)) {
            select.setString(1, topicId);
            select.setInt(2, topicPartition.partition());
            try (ResultSet rows = select.executeQuery()) {
                if (rows.next()) {
                    return new PartitionRow(rows.getLong(1), rows.getLong(2), rows.getLong(3));
                }
            }
        }
        throw new UnknownTopicException(topicPartition.toString());
    }

    private static Optional<String> topicId(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT id FROM topics WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(rows.getString(1)) : Optional.empty();
            }
        }
    }
}
