package io.floe.metadata.sql;

import io.floe.core.topic.UnknownTopicException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** Offsets retention must not pass, per partition and holder (table {@code retention_holds}). */
final class RetentionHolds {

    /** The topic's partition rows only (a join would lock the topic's row too). */
    private static final String PARTITIONS =
            "SELECT id, partition_index FROM partitions" + " WHERE topic_id = (SELECT id FROM topics WHERE name = ?)";

    private final Dialect dialect;

    RetentionHolds(Dialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Writes the holds under the partitions' row locks, which truncation takes as well, so a hold and a
     * truncation of one partition are ordered: the truncation that comes second sees the hold, and a
     * holder that comes second reads the log start the truncation left.
     */
    void hold(Connection connection, String holder, String topic, Map<Integer, Long> offsets) throws SQLException {
        Map<Integer, Long> ids = lockPartitions(connection, topic);
        if (ids.isEmpty()) {
            throw new UnknownTopicException(topic);
        }
        try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO retention_holds"
                + " (partition_id, holder, hold_offset) VALUES (?, ?, ?)"
                + " ON CONFLICT (partition_id, holder) DO UPDATE SET hold_offset = excluded.hold_offset")) {
            for (Map.Entry<Integer, Long> hold : offsets.entrySet()) {
                Long id = ids.get(hold.getKey());
                if (id == null) {
                    continue;
                }
                upsert.setLong(1, id);
                upsert.setString(2, holder);
                upsert.setLong(3, hold.getValue());
                upsert.addBatch();
            }
            upsert.executeBatch();
        }
    }

    void release(Connection connection, String holder, String topic) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM retention_holds WHERE holder = ?"
                + " AND partition_id IN (SELECT p.id FROM partitions p JOIN topics t ON t.id = p.topic_id"
                + " WHERE t.name = ?)")) {
            delete.setString(1, holder);
            delete.setString(2, topic);
            delete.executeUpdate();
        }
    }

    Map<Integer, Long> lowest(Connection connection, String topic) throws SQLException {
        Map<Integer, Long> holds = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT p.partition_index, MIN(h.hold_offset)"
                + " FROM retention_holds h JOIN partitions p ON p.id = h.partition_id JOIN topics t ON t.id = p.topic_id"
                + " WHERE t.name = ? GROUP BY p.partition_index")) {
            select.setString(1, topic);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    holds.put(rows.getInt(1), rows.getLong(2));
                }
            }
        }
        return holds;
    }

    /** The lowest hold on one partition (by partition id), or {@code Long.MAX_VALUE} when it has none. */
    static long lowest(Connection connection, long partitionId) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement("SELECT MIN(hold_offset) FROM retention_holds WHERE partition_id = ?")) {
            select.setLong(1, partitionId);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                long lowest = row.getLong(1);
                return row.wasNull() ? Long.MAX_VALUE : lowest;
            }
        }
    }

    /** The topic's partition ids by index, their rows locked in ascending id order, as commits lock them. */
    private Map<Integer, Long> lockPartitions(Connection connection, String topic) throws SQLException {
        Map<Integer, Long> ids = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement(PARTITIONS + dialect.forUpdateInOrder("id"))) {
            select.setString(1, topic);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.put(rows.getInt(2), rows.getLong(1));
                }
            }
        }
        return ids;
    }
}
