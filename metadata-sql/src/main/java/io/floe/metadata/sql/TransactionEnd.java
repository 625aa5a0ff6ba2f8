package io.floe.metadata.sql;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.transaction.ProducerEpoch;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The end of one producer's transaction inside a write transaction that holds its transactional id's
 * row: a marker at the next offset of every partition where the producer has a transaction open, the
 * pending offsets moved to the groups' committed offsets (commit) or dropped (abort), the
 * transaction's partitions cleared. The caller records the outcome in the row.
 *
 * <p>The producer's open partitions come from its partition state (the partial index by producer), not
 * from the transaction's partition list: a marker goes exactly where the producer wrote. Its partition
 * state cannot change meanwhile: every commit of its transactional batches locks the same row first.
 */
final class TransactionEnd {

    /** Floe has no coordinator epochs: any agent ends any transaction through the store. */
    static final int COORDINATOR_EPOCH = 0;

    private final Dialect dialect;
    private final GroupOffsets groupOffsets;

    TransactionEnd(Dialect dialect, GroupOffsets groupOffsets) {
        this.dialect = dialect;
        this.groupOffsets = groupOffsets;
    }

    /** The open transaction's first offset in each partition where the producer has one, by partition id. */
    static Map<Long, Long> openPartitions(Connection connection, long producerId) throws SQLException {
        Map<Long, Long> open = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT partition_id, txn_first_offset"
                + " FROM producer_state WHERE producer_id = ? AND txn_first_offset IS NOT NULL")) {
            select.setLong(1, producerId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    open.put(rows.getLong(1), rows.getLong(2));
                }
            }
        }
        return open;
    }

    List<TransactionMarker> end(Connection connection, TransactionRow row, boolean commit, long now)
            throws SQLException {
        List<TransactionMarker> markers =
                appendMarkers(connection, row.producer(), openPartitions(connection, row.producerId()), commit, now);
        settleOffsets(connection, row.transactionalId(), commit);
        new TransactionRows(dialect).clearPartitions(connection, row.transactionalId());
        return markers;
    }

    /** Appends markers to {@code open} (partition id → first offset), locking the partitions in id order. */
    List<TransactionMarker> appendMarkers(
            Connection connection, ProducerEpoch producer, Map<Long, Long> open, boolean commit, long now)
            throws SQLException {
        if (open.isEmpty()) {
            return List.of();
        }
        Map<Long, LockedPartition> partitions = lockPartitions(connection, List.copyOf(open.keySet()));
        List<TransactionMarker> markers = new ArrayList<>(partitions.size());
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO txn_markers (partition_id,"
                        + " marker_offset, producer_id, producer_epoch, committed, first_offset, coordinator_epoch,"
                        + " marker_timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
                PreparedStatement advance =
                        connection.prepareStatement("UPDATE partitions SET next_offset = ? WHERE id = ?");
                PreparedStatement close = connection.prepareStatement("UPDATE producer_state SET txn_first_offset ="
                        + " NULL WHERE partition_id = ? AND producer_id = ?")) {
            for (Map.Entry<Long, Long> entry : open.entrySet()) {
                long partitionId = entry.getKey();
                close.setLong(1, partitionId);
                close.setLong(2, producer.producerId());
                close.addBatch();
                LockedPartition partition = partitions.get(partitionId);
                if (partition == null) {
                    continue; // its topic was deleted: nothing left to mark
                }
                long offset = partition.nextOffset();
                long firstOffset = Math.min(entry.getValue(), offset);
                insert.setLong(1, partitionId);
                insert.setLong(2, offset);
                insert.setLong(3, producer.producerId());
                insert.setShort(4, producer.epoch());
                insert.setShort(5, (short) (commit ? 1 : 0));
                insert.setLong(6, firstOffset);
                insert.setInt(7, COORDINATOR_EPOCH);
                insert.setLong(8, now);
                insert.addBatch();
                advance.setLong(1, offset + 1);
                advance.setLong(2, partitionId);
                advance.addBatch();
                markers.add(new TransactionMarker(
                        partition.topicPartition(),
                        offset,
                        producer.producerId(),
                        producer.epoch(),
                        commit,
                        firstOffset,
                        COORDINATOR_EPOCH,
                        now));
            }
            insert.executeBatch();
            advance.executeBatch();
            close.executeBatch();
        }
        return markers;
    }

    /** Moves (commit) or drops (abort) the transaction's pending offsets. */
    private void settleOffsets(Connection connection, String transactionalId, boolean commit) throws SQLException {
        if (commit) {
            Map<String, Map<TopicPartition, CommittedOffset>> byGroup = new HashMap<>();
            try (PreparedStatement select = connection.prepareStatement("SELECT group_id, topic_name,"
                    + " partition_index, committed_offset, leader_epoch, metadata, commit_timestamp"
                    + " FROM pending_offsets WHERE transactional_id = ?")) {
                select.setString(1, transactionalId);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        byGroup.computeIfAbsent(rows.getString(1), g -> new HashMap<>())
                                .put(
                                        new TopicPartition(rows.getString(2), rows.getInt(3)),
                                        new CommittedOffset(
                                                rows.getLong(4), rows.getInt(5), rows.getString(6), rows.getLong(7)));
                    }
                }
            }
            for (Map.Entry<String, Map<TopicPartition, CommittedOffset>> group : byGroup.entrySet()) {
                groupOffsets.commit(connection, group.getKey(), group.getValue());
            }
        }
        try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM pending_offsets WHERE transactional_id = ?")) {
            delete.setString(1, transactionalId);
            delete.executeUpdate();
        }
    }

    private record LockedPartition(TopicPartition topicPartition, long nextOffset) {}

    private Map<Long, LockedPartition> lockPartitions(Connection connection, List<Long> ids) throws SQLException {
        Map<Long, UUID> topicIds = new HashMap<>();
        Map<Long, long[]> rows = new HashMap<>();
        KeyedSelect.run(
                connection,
                "SELECT id, topic_id, partition_index, next_offset FROM partitions",
                List.of("id"),
                dialect.forUpdateInOrder("id"),
                ids,
                (statement, index, id) -> statement.setLong(index, id),
                row -> {
                    topicIds.put(row.getLong(1), UUID.fromString(row.getString(2)));
                    rows.put(row.getLong(1), new long[] {row.getInt(3), row.getLong(4)});
                });
        Map<UUID, String> names = new HashMap<>();
        KeyedSelect.run(
                connection,
                "SELECT id, name FROM topics",
                List.of("id"),
                "",
                List.copyOf(new HashSet<>(topicIds.values())),
                (statement, index, id) -> statement.setString(index, id.toString()),
                row -> names.put(UUID.fromString(row.getString(1)), row.getString(2)));
        Map<Long, LockedPartition> partitions = new HashMap<>();
        rows.forEach((id, values) -> partitions.put(
                id, new LockedPartition(new TopicPartition(names.get(topicIds.get(id)), (int) values[0]), values[1])));
        return partitions;
    }
}
