package io.floe.metadata.sql;

import io.floe.core.metadata.ProducerState;
import io.floe.core.object.ObjectKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
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

    static void write(Connection connection, Dialect dialect, ObjectKey object, List<BatchRow> appended,
            CommitState state) throws SQLException {
        insertBatches(connection, object, appended);
        advancePartitions(connection, state);
        saveProducers(connection, dialect, state.producers());
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
        try (PreparedStatement update = connection.prepareStatement("UPDATE partitions SET next_offset = ? WHERE id = ?")) {
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

    /** Upserts each changed producer's state, then replaces the stored recent batches that fell out of its window. */
    private static void saveProducers(Connection connection, Dialect dialect,
            Map<CommitState.ProducerKey, ProducerHistory> producers) throws SQLException {
        String upsert = dialect.upsert("producer_state", List.of("partition_id", "producer_id"),
                List.of("producer_epoch", "last_sequence"));
        try (PreparedStatement saveState = connection.prepareStatement(upsert);
                PreparedStatement dropOld = connection.prepareStatement("DELETE FROM producer_batches"
                        + " WHERE partition_id = ? AND producer_id = ? AND base_offset < ?");
                PreparedStatement addNew = connection.prepareStatement("INSERT INTO producer_batches"
                        + " (partition_id, producer_id, base_offset, base_sequence, last_sequence) VALUES (?, ?, ?, ?, ?)")) {
            for (Map.Entry<CommitState.ProducerKey, ProducerHistory> entry : producers.entrySet()) {
                if (entry.getValue().changed()) {
                    addProducer(entry.getKey(), entry.getValue(), saveState, dropOld, addNew);
                }
            }
            saveState.executeBatch();
            dropOld.executeBatch();
            addNew.executeBatch();
        }
    }

    private static void addProducer(CommitState.ProducerKey key, ProducerHistory history, PreparedStatement saveState,
            PreparedStatement dropOld, PreparedStatement addNew) throws SQLException {
        saveState.setLong(1, key.partitionId());
        saveState.setLong(2, key.producerId());
        saveState.setShort(3, history.epoch());
        saveState.setInt(4, history.lastSequence());
        saveState.addBatch();
        dropOld.setLong(1, key.partitionId());
        dropOld.setLong(2, key.producerId());
        dropOld.setLong(3, history.oldestKeptOffset());
        dropOld.addBatch();
        for (RecentBatch batch : history.unstored()) {
            addNew.setLong(1, key.partitionId());
            addNew.setLong(2, key.producerId());
            addNew.setLong(3, batch.baseOffset());
            addNew.setInt(4, batch.baseSequence());
            addNew.setInt(5, batch.lastSequence());
            addNew.addBatch();
        }
    }
}
