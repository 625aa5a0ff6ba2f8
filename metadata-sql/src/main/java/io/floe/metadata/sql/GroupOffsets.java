package io.floe.metadata.sql;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Rows of {@code group_offsets}: one per group and partition (and reads of the group's
 * {@code pending_offsets}, which transactions write). Rows name topics, as Kafka does, so
 * they stay readable after the topic is gone; topic deletion clears them explicitly. Each method
 * runs inside the caller's transaction.
 */
final class GroupOffsets {

    private static final List<String> KEY = List.of("group_id", "topic_name", "partition_index");
    private static final List<String> VALUES =
            List.of("committed_offset", "leader_epoch", "metadata", "commit_timestamp");

    private final String upsert;

    GroupOffsets(Dialect dialect) {
        this.upsert = dialect.upsert("group_offsets", KEY, VALUES);
    }

    void commit(Connection connection, String groupId, Map<TopicPartition, CommittedOffset> offsets)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(upsert)) {
            for (Map.Entry<TopicPartition, CommittedOffset> entry : offsets.entrySet()) {
                CommittedOffset offset = entry.getValue();
                statement.setString(1, groupId);
                statement.setString(2, entry.getKey().topic());
                statement.setInt(3, entry.getKey().partition());
                statement.setLong(4, offset.offset());
                statement.setInt(5, offset.leaderEpoch());
                statement.setString(6, offset.metadata());
                statement.setLong(7, offset.commitTimestampMs());
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }

    /** Sorted by partition, so callers see the same order on every dialect. */
    Map<TopicPartition, CommittedOffset> ofGroup(Connection connection, String groupId) throws SQLException {
        Map<TopicPartition, CommittedOffset> offsets = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT topic_name, partition_index,"
                        + " committed_offset, leader_epoch, metadata, commit_timestamp FROM group_offsets WHERE group_id = ?")) {
            select.setString(1, groupId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    offsets.put(
                            new TopicPartition(rows.getString(1), rows.getInt(2)),
                            new CommittedOffset(rows.getLong(3), rows.getInt(4), rows.getString(5), rows.getLong(6)));
                }
            }
        }
        return offsets;
    }

    /** The partitions for which the group has offsets pending in an open transaction ({@code pending_offsets}). */
    Set<TopicPartition> pending(Connection connection, String groupId) throws SQLException {
        Set<TopicPartition> pending = new HashSet<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT topic_name, partition_index FROM pending_offsets WHERE group_id = ?")) {
            select.setString(1, groupId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    pending.add(new TopicPartition(rows.getString(1), rows.getInt(2)));
                }
            }
        }
        return pending;
    }

    int delete(Connection connection, String groupId, Collection<TopicPartition> partitions) throws SQLException {
        int deleted = 0;
        try (PreparedStatement delete = connection.prepareStatement(
                "DELETE FROM group_offsets WHERE group_id = ? AND topic_name = ? AND partition_index = ?")) {
            for (TopicPartition partition : partitions) {
                delete.setString(1, groupId);
                delete.setString(2, partition.topic());
                delete.setInt(3, partition.partition());
                deleted += delete.executeUpdate();
            }
        }
        return deleted;
    }

    int deleteGroup(Connection connection, String groupId) throws SQLException {
        return update(connection, "DELETE FROM group_offsets WHERE group_id = ?", groupId);
    }

    int deleteTopic(Connection connection, String topic) throws SQLException {
        return update(connection, "DELETE FROM group_offsets WHERE topic_name = ?", topic);
    }

    int expire(Connection connection, String groupId, Instant committedBefore) throws SQLException {
        return update(
                connection,
                "DELETE FROM group_offsets WHERE group_id = ? AND commit_timestamp < ?",
                groupId,
                committedBefore.toEpochMilli());
    }

    /** Sorted here rather than in SQL: databases order text by their own collation. */
    List<String> groups(Connection connection) throws SQLException {
        List<String> groups = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT DISTINCT group_id FROM group_offsets");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                groups.add(rows.getString(1));
            }
        }
        Collections.sort(groups);
        return groups;
    }

    /** Through {@code group_offsets_by_time}: reads the offsets older than the cutoff alone. */
    List<String> groupsCommittedBefore(Connection connection, Instant committedBefore) throws SQLException {
        List<String> groups = new ArrayList<>();
        try (PreparedStatement select =
                connection.prepareStatement("SELECT DISTINCT group_id FROM group_offsets WHERE commit_timestamp < ?")) {
            select.setLong(1, committedBefore.toEpochMilli());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    groups.add(rows.getString(1));
                }
            }
        }
        Collections.sort(groups);
        return groups;
    }

    private static int update(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            return statement.executeUpdate();
        }
    }
}
