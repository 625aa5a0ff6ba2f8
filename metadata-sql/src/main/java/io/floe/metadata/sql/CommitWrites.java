package io.floe.metadata.sql;

import io.floe.core.metadata.ProducerState;
import io.floe.core.object.ObjectKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Map;

/**
 * Writes back what a commit changed, one batched statement per kind of row, so a commit of hundreds
 * of batches costs a handful of round trips.
 */
final class CommitWrites {

    private static final String INSERT_BATCH = "INSERT INTO batches (partition_id, base_offset, last_offset,"
            + " object_key, byte_position, byte_length, max_timestamp, producer_id, producer_epoch, base_sequence,"
            + " last_sequence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private CommitWrites() {}

    /** {@code writtenAtMs}: the commit's time, which producers' state keeps for its expiry. */
    static void write(
            Connection connection,
            Dialect dialect,
            ObjectKey object,
            List<BatchRow> appended,
            CommitState state,
            long writtenAtMs)
            throws SQLException {
        insertBatches(connection, object, appended);
        advancePartitions(connection, state);
        saveProducers(connection, dialect, state.producers(), writtenAtMs);
        state.transactions().write(connection, dialect);
    }

    private static void insertBatches(Connection connection, ObjectKey object, List<BatchRow> appended)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT_BATCH)) {
            for (BatchRow row : appended) {
                ProducerState producer = row.batch().producer();
                insert.setLong(1, row.partitionId());
                insert.setLong(2, row.baseOffset());
                insert.setLong(3, row.lastOffset());
                insert.setString(4, object.value());
                insert.setLong(5, row.batch().range().position());
                insert.setInt(6, row.batch().range().length());
                insert.setLong(7, row.batch().maxTimestamp());
                insert.setLong(8, producer.producerId());
                insert.setShort(9, producer.producerEpoch());
                insert.setInt(10, producer.baseSequence());
                insert.setInt(11, producer.lastSequence());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    private static void advancePartitions(Connection connection, CommitState state) throws SQLException {
        try (PreparedStatement update =
                connection.prepareStatement("UPDATE partitions SET next_offset = ? WHERE id = ?")) {
            for (PartitionLog log : state.partitions()) {
                if (log.advanced()) {
                    update.setLong(1, log.nextOffset());
                    update.setLong(2, log.id());
                    update.addBatch();
                }
            }
            update.executeBatch();
        }
    }

    /** Upserts the state of each producer whose history changed, its last batches included. */
    private static void saveProducers(
            Connection connection,
            Dialect dialect,
            Map<CommitState.ProducerKey, ProducerHistory> producers,
            long writtenAtMs)
            throws SQLException {
        String upsert = dialect.upsert(
                "producer_state",
                List.of("partition_id", "producer_id"),
                List.of(
                        "producer_epoch",
                        "last_sequence",
                        "recent_batches",
                        "first_sequence",
                        "written_at",
                        "txn_first_offset"));
        try (PreparedStatement save = connection.prepareStatement(upsert)) {
            for (Map.Entry<CommitState.ProducerKey, ProducerHistory> entry : producers.entrySet()) {
                ProducerHistory history = entry.getValue();
                if (history.changed()) {
                    save.setLong(1, entry.getKey().partitionId());
                    save.setLong(2, entry.getKey().producerId());
                    save.setShort(3, history.epoch());
                    save.setInt(4, history.lastSequence());
                    save.setString(5, history.encodeRecent());
                    save.setInt(6, history.firstSequence());
                    save.setLong(7, writtenAtMs);
                    if (history.txnFirstOffset() == ProducerHistory.NO_TRANSACTION) {
                        save.setNull(8, Types.BIGINT);
                    } else {
                        save.setLong(8, history.txnFirstOffset());
                    }
                    save.addBatch();
                }
            }
            save.executeBatch();
        }
    }
}
