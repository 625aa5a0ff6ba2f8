package io.floe.metadata.sql;

import io.floe.core.concurrency.Concurrency;
import io.floe.core.metadata.InvalidPartitionsException;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.core.topic.UnknownTopicException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Topic rows, their config overrides and their partitions' rows. Each method runs inside the caller's
 * transaction. Changes to a topic lock its row first, so concurrent changes from several stores
 * queue instead of working from the same stale read.
 */
final class TopicCatalog {

    /** The partition ids of one topic, for statements that clear a topic's per-partition rows. */
    private static final String PARTITIONS_OF_TOPIC = "SELECT id FROM partitions WHERE topic_id = ?";

    private final Clock clock;
    private final Dialect dialect;

    TopicCatalog(Clock clock, Dialect dialect) {
        this.clock = clock;
        this.dialect = dialect;
    }

    /** Another store creating the same name at the same time makes the insert fail on the unique name. */
    Topic create(Connection connection, NewTopic request) throws SQLException {
        if (find(connection, request.name(), "").isPresent()) {
            throw new TopicExistsException(request.name());
        }
        Topic topic = new Topic(
                request.name(), Concurrency.threads().randomUuid(), request.partitionCount(), request.configs());
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO topics (id, name, partition_count, created_at) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, topic.id().toString());
            insert.setString(2, topic.name());
            insert.setInt(3, topic.partitionCount());
            insert.setLong(4, clock.millis());
            insert.executeUpdate();
        } catch (SQLException e) {
            if (dialect.uniqueViolation(e)) {
                throw new TopicExistsException(request.name());
            }
            throw e;
        }
        insertConfigs(connection, topic.id(), topic.configs());
        insertPartitions(connection, topic.id(), 0, topic.partitionCount());
        return topic;
    }

    /**
     * Removes the topic and every row that hangs off it. Objects keep their rows: their reference
     * counts drop by the batch rows removed here, and cleanup deletes those that reach zero.
     */
    void delete(Connection connection, String name) throws SQLException {
        Topic topic = require(connection, name);
        String topicId = topic.id().toString();
        lockPartitions(connection, topicId);
        Map<ObjectKey, Integer> released = deleteBatches(connection, topicId);
        ObjectReferences.decrement(connection, released);
        update(connection, "DELETE FROM producer_state WHERE partition_id IN (" + PARTITIONS_OF_TOPIC + ")", topicId);
        update(connection, "DELETE FROM retention_holds WHERE partition_id IN (" + PARTITIONS_OF_TOPIC + ")", topicId);
        update(connection, "DELETE FROM txn_markers WHERE partition_id IN (" + PARTITIONS_OF_TOPIC + ")", topicId);
        update(
                connection,
                "DELETE FROM transaction_partitions WHERE partition_id IN (" + PARTITIONS_OF_TOPIC + ")",
                topicId);
        update(connection, "DELETE FROM pending_offsets WHERE topic_name = ?", name);
        update(connection, "DELETE FROM partitions WHERE topic_id = ?", topicId);
        update(connection, "DELETE FROM topic_configs WHERE topic_id = ?", topicId);
        update(connection, "DELETE FROM topics WHERE id = ?", topicId);
        Counters.increment(connection, Counters.LOG_REWRITES);
    }

    /**
     * Deletes the topic's batch rows; returns how many of them pointed into each object. The count
     * comes from the rows the DELETE itself removed: compaction swaps lock no partition row, and one
     * that commits while this transaction waits on a row it changed has moved that row to its output.
     * Counting from this statement's snapshot instead (an UPDATE with a correlated COUNT, as before)
     * released the swap's input a second time and never released its output. The rows are locked
     * first in (partition, offset) order, the order swaps and retention change them in, so the
     * DELETE neither waits nor deadlocks.
     */
    private Map<ObjectKey, Integer> deleteBatches(Connection connection, String topicId) throws SQLException {
        String ofTopic = " FROM batches WHERE partition_id IN (" + PARTITIONS_OF_TOPIC + ")";
        try (PreparedStatement lock = connection.prepareStatement(
                "SELECT partition_id, base_offset" + ofTopic + dialect.forUpdateInOrder("partition_id, base_offset"))) {
            lock.setString(1, topicId);
            try (ResultSet rows = lock.executeQuery()) {
                while (rows.next()) {
                    // Reading the rows takes the locks.
                }
            }
        }
        Map<ObjectKey, Integer> released = new HashMap<>();
        try (PreparedStatement delete = connection.prepareStatement("DELETE" + ofTopic + " RETURNING object_key")) {
            delete.setString(1, topicId);
            try (ResultSet rows = delete.executeQuery()) {
                while (rows.next()) {
                    released.merge(new ObjectKey(rows.getString(1)), 1, Integer::sum);
                }
            }
        }
        return released;
    }

    Topic createPartitions(Connection connection, String name, int totalCount) throws SQLException {
        Topic topic = require(connection, name);
        int current = topic.partitionCount();
        if (totalCount == current) {
            throw new InvalidPartitionsException("Topic already has " + current + " partitions.");
        }
        if (totalCount < current) {
            throw new InvalidPartitionsException("Topic currently has " + current
                    + " partitions, which is higher than the requested " + totalCount + ".");
        }
        update(
                connection,
                "UPDATE topics SET partition_count = ? WHERE id = ?",
                totalCount,
                topic.id().toString());
        insertPartitions(connection, topic.id(), current, totalCount);
        return new Topic(name, topic.id(), totalCount, topic.configs());
    }

    Topic setConfigs(Connection connection, String name, Map<String, String> configs) throws SQLException {
        Topic topic = require(connection, name);
        update(
                connection,
                "DELETE FROM topic_configs WHERE topic_id = ?",
                topic.id().toString());
        insertConfigs(connection, topic.id(), configs);
        return new Topic(name, topic.id(), topic.partitionCount(), configs);
    }

    Optional<Topic> find(Connection connection, String name) throws SQLException {
        return find(connection, name, "");
    }

    private Optional<Topic> find(Connection connection, String name, String lock) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement("SELECT id, partition_count FROM topics WHERE name = ?" + lock)) {
            select.setString(1, name);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return Optional.empty();
                }
                UUID id = UUID.fromString(rows.getString(1));
                return Optional.of(new Topic(name, id, rows.getInt(2), configs(connection, id)));
            }
        }
    }

    /**
     * All topics, sorted by name here rather than in SQL: databases order text by their own
     * collation, and callers should see the same order on every dialect.
     */
    List<Topic> all(Connection connection) throws SQLException {
        Map<String, Map<String, String>> configsByTopic = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT topic_id, name, value FROM topic_configs");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                configsByTopic
                        .computeIfAbsent(rows.getString(1), id -> new HashMap<>())
                        .put(rows.getString(2), rows.getString(3));
            }
        }
        List<Topic> topics = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT id, name, partition_count FROM topics");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                String id = rows.getString(1);
                topics.add(new Topic(
                        rows.getString(2),
                        UUID.fromString(id),
                        rows.getInt(3),
                        configsByTopic.getOrDefault(id, Map.of())));
            }
        }
        topics.sort(Comparator.comparing(Topic::name));
        return topics;
    }

    /** The topic, its row locked until the transaction ends. */
    private Topic require(Connection connection, String name) throws SQLException {
        return find(connection, name, dialect.forUpdate()).orElseThrow(() -> new UnknownTopicException(name));
    }

    /**
     * Locks the topic's partition rows in ascending id order, as commits do, before the deletion
     * touches the rows that hang off them: a commit then either finishes first or finds the
     * partitions gone, and the two never wait for each other's rows.
     */
    private void lockPartitions(Connection connection, String topicId) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement(PARTITIONS_OF_TOPIC + dialect.forUpdateInOrder("id"))) {
            select.setString(1, topicId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    // Reading the rows takes the locks.
                }
            }
        }
    }

    private static Map<String, String> configs(Connection connection, UUID topicId) throws SQLException {
        Map<String, String> configs = new HashMap<>();
        try (PreparedStatement select =
                connection.prepareStatement("SELECT name, value FROM topic_configs WHERE topic_id = ?")) {
            select.setString(1, topicId.toString());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    configs.put(rows.getString(1), rows.getString(2));
                }
            }
        }
        return configs;
    }

    private static void insertConfigs(Connection connection, UUID topicId, Map<String, String> configs)
            throws SQLException {
        try (PreparedStatement insert =
                connection.prepareStatement("INSERT INTO topic_configs (topic_id, name, value) VALUES (?, ?, ?)")) {
            for (Map.Entry<String, String> config : configs.entrySet()) {
                insert.setString(1, topicId.toString());
                insert.setString(2, config.getKey());
                insert.setString(3, config.getValue());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    /** Adds empty partitions {@code from} (inclusive) to {@code to} (exclusive), with fresh partition ids. */
    private static void insertPartitions(Connection connection, UUID topicId, int from, int to) throws SQLException {
        long firstId = Counters.allocate(connection, Counters.PARTITION_ID, to - from);
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO partitions"
                + " (id, topic_id, partition_index, log_start_offset, next_offset) VALUES (?, ?, ?, 0, 0)")) {
            for (int partition = from; partition < to; partition++) {
                insert.setLong(1, firstId + partition - from);
                insert.setString(2, topicId.toString());
                insert.setInt(3, partition);
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    private static void update(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            statement.executeUpdate();
        }
    }
}
