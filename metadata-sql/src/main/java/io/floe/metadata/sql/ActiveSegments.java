package io.floe.metadata.sql;

import io.floe.core.log.TopicPartition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The first offset of each partition's emulated active segment ({@code LogRetention#activeSegment}), a
 * column of its partition row written by key compaction alone, which only moves it up. Empty answers
 * mean the partition does not exist.
 */
final class ActiveSegments {

    private ActiveSegments() {}

    /** The first offset of the partition's emulated active segment ({@code LogRetention#activeSegment}). */
    static Optional<Long> activeSegment(Connection connection, TopicPartition topicPartition) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT p.segment_base_offset FROM partitions p"
                + " JOIN topics t ON t.id = p.topic_id WHERE t.name = ? AND p.partition_index = ?")) {
            select.setString(1, topicPartition.topic());
            select.setInt(2, topicPartition.partition());
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(rows.getLong(1)) : Optional.empty();
            }
        }
    }

    /** Moves the emulated active segment's first offset up to {@code baseOffset}, never down. */
    static Optional<Long> rollSegment(Connection connection, TopicPartition topicPartition, long baseOffset)
            throws SQLException {
        Optional<BatchIndex.PartitionRow> partition = BatchIndex.partition(connection, topicPartition, false);
        if (partition.isEmpty()) {
            return Optional.empty();
        }
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE partitions SET segment_base_offset = ? WHERE id = ? AND segment_base_offset < ?")) {
            update.setLong(1, baseOffset);
            update.setLong(2, partition.get().id());
            update.setLong(3, baseOffset);
            update.executeUpdate();
        }
        return activeSegment(connection, topicPartition);
    }
}
