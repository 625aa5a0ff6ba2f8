package io.floe.metadata.sql;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.BatchAppend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Everything one commit reads before it decides anything: the named topics, the target partitions'
 * markers and the producers' histories, each loaded with a few multi-key statements. The commit then
 * works in memory and {@link CommitWrites} writes back what changed.
 */
final class CommitState {

    /** A topic as a commit needs it. */
    record TopicRow(UUID id, int partitionCount) {}

    record ProducerKey(long partitionId, long producerId) {}

    private static final Comparator<ProducerKey> PRODUCER_KEY_ORDER =
            Comparator.comparingLong(ProducerKey::partitionId).thenComparingLong(ProducerKey::producerId);

    private final Map<String, TopicRow> topics;
    private final Map<TopicPartition, PartitionLog> partitions;
    private final Map<ProducerKey, ProducerHistory> producers;
    private final CommitTransactions transactions;

    private CommitState(
            Map<String, TopicRow> topics,
            Map<TopicPartition, PartitionLog> partitions,
            Map<ProducerKey, ProducerHistory> producers,
            CommitTransactions transactions) {
        this.topics = topics;
        this.partitions = partitions;
        this.producers = producers;
        this.transactions = transactions;
    }

    static CommitState load(Connection connection, Dialect dialect, List<BatchAppend> batches) throws SQLException {
        Set<String> names = new LinkedHashSet<>();
        batches.forEach(b -> names.add(b.topicPartition().topic()));
        Map<String, TopicRow> topics = loadTopics(connection, List.copyOf(names));
        // The transactional ids' rows come first in the lock order (see Transactions).
        CommitTransactions transactions = CommitTransactions.load(connection, dialect, batches);
        Set<TopicPartition> targets = new LinkedHashSet<>();
        for (BatchAppend batch : batches) {
            TopicRow topic = topics.get(batch.topicPartition().topic());
            if (topic != null && topic.partitionCount() > batch.topicPartition().partition()) {
                targets.add(batch.topicPartition());
            }
        }
        Map<TopicPartition, PartitionLog> partitions =
                loadPartitions(connection, dialect, topics, List.copyOf(targets));
        // Sorted, so that databases with row locks lock them in the same order in every commit.
        Set<ProducerKey> producerKeys = new TreeSet<>(PRODUCER_KEY_ORDER);
        for (BatchAppend batch : batches) {
            PartitionLog log = partitions.get(batch.topicPartition());
            if (log != null && batch.producer().idempotent()) {
                producerKeys.add(new ProducerKey(log.id(), batch.producer().producerId()));
            }
        }
        Map<ProducerKey, ProducerHistory> producers = loadProducers(connection, dialect, List.copyOf(producerKeys));
        return new CommitState(topics, partitions, producers, transactions);
    }

    /**
     * Why the batch's target does not exist, or null when it does. The batch names its topic by
     * name and id: a topic deleted and re-created under the same name has a new id.
     */
    String missingTarget(BatchAppend batch) {
        TopicPartition target = batch.topicPartition();
        TopicRow topic = topics.get(target.topic());
        if (topic == null) {
            return "topic '" + target.topic() + "' (id " + batch.topicId() + ") does not exist";
        }
        if (!topic.id().equals(batch.topicId())) {
            return "topic '" + target.topic() + "' with id " + batch.topicId() + " was deleted; the topic now has id "
                    + topic.id();
        }
        if (!partitions.containsKey(target)) {
            return "partition " + target.partition() + " of topic '" + target.topic()
                    + "' does not exist; the topic has " + topic.partitionCount() + " partitions";
        }
        return null;
    }

    PartitionLog partition(TopicPartition topicPartition) {
        return partitions.get(topicPartition);
    }

    Collection<PartitionLog> partitions() {
        return partitions.values();
    }

    /** The stored history, or null when the producer has none on this partition. */
    ProducerHistory producer(long partitionId, long producerId) {
        return producers.get(new ProducerKey(partitionId, producerId));
    }

    /** The producer's history, started fresh at {@code epoch} when none is stored. */
    ProducerHistory producerOrFresh(long partitionId, long producerId, short epoch) {
        return producers.computeIfAbsent(new ProducerKey(partitionId, producerId), key -> ProducerHistory.fresh(epoch));
    }

    Map<ProducerKey, ProducerHistory> producers() {
        return producers;
    }

    CommitTransactions transactions() {
        return transactions;
    }

    private static Map<String, TopicRow> loadTopics(Connection connection, List<String> names) throws SQLException {
        Map<String, TopicRow> topics = new HashMap<>();
        KeyedSelect.run(
                connection,
                "SELECT name, id, partition_count FROM topics",
                List.of("name"),
                "",
                names,
                (statement, index, name) -> statement.setString(index, name),
                row -> topics.put(row.getString(1), new TopicRow(UUID.fromString(row.getString(2)), row.getInt(3))));
        return topics;
    }

    /**
     * Finds the targets' partition ids first, without locks (a partition keeps its id for life, and
     * ids are never reused), then locks the rows by ascending id and reads their markers under the
     * lock: where writers run concurrently, the markers are the ones the previous commit left.
     */
    private static Map<TopicPartition, PartitionLog> loadPartitions(
            Connection connection, Dialect dialect, Map<String, TopicRow> topics, List<TopicPartition> targets)
            throws SQLException {
        Map<UUID, String> names = new HashMap<>();
        topics.forEach((name, topic) -> names.put(topic.id(), name));
        Map<Long, TopicPartition> byId = new TreeMap<>();
        KeyedSelect.run(
                connection,
                "SELECT topic_id, partition_index, id FROM partitions",
                List.of("topic_id", "partition_index"),
                "",
                targets,
                (statement, index, target) -> {
                    statement.setString(index, topics.get(target.topic()).id().toString());
                    statement.setInt(index + 1, target.partition());
                },
                row -> byId.put(
                        row.getLong(3),
                        new TopicPartition(names.get(UUID.fromString(row.getString(1))), row.getInt(2))));
        Map<TopicPartition, PartitionLog> partitions = new HashMap<>();
        KeyedSelect.run(
                connection,
                "SELECT id, log_start_offset, next_offset FROM partitions",
                List.of("id"),
                dialect.forUpdateInOrder("id"),
                List.copyOf(byId.keySet()),
                (statement, index, id) -> statement.setLong(index, id),
                row -> partitions.put(
                        byId.get(row.getLong(1)), new PartitionLog(row.getLong(1), row.getLong(2), row.getLong(3))));
        return partitions;
    }

    private static Map<ProducerKey, ProducerHistory> loadProducers(
            Connection connection, Dialect dialect, List<ProducerKey> keys) throws SQLException {
        Map<ProducerKey, ProducerHistory> producers = new HashMap<>();
        KeyedSelect.run(
                connection,
                "SELECT partition_id, producer_id, producer_epoch, last_sequence, recent_batches,"
                        + " first_sequence, txn_first_offset FROM producer_state",
                List.of("partition_id", "producer_id"),
                dialect.forUpdateInOrder("partition_id, producer_id"),
                keys,
                CommitState::bindProducerKey,
                row -> {
                    int firstSequence = row.getInt(6);
                    boolean firstUnknown = row.wasNull();
                    long txnFirstOffset = row.getLong(7);
                    if (row.wasNull()) {
                        txnFirstOffset = ProducerHistory.NO_TRANSACTION;
                    }
                    producers.put(
                            new ProducerKey(row.getLong(1), row.getLong(2)),
                            ProducerHistory.decode(
                                    row.getShort(3),
                                    firstUnknown ? ProducerHistory.UNKNOWN_SEQUENCE : firstSequence,
                                    row.getInt(4),
                                    row.getString(5),
                                    txnFirstOffset));
                });
        return producers;
    }

    private static void bindProducerKey(PreparedStatement statement, int index, ProducerKey key) throws SQLException {
        statement.setLong(index, key.partitionId());
        statement.setLong(index + 1, key.producerId());
    }
}
