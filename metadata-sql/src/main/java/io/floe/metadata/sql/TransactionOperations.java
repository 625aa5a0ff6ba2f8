package io.floe.metadata.sql;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionError;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.core.transaction.TransactionState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The bodies of the {@code Transactions} writes, each run inside one write transaction that locks the
 * transactional id's row first (and, for pending offsets, the group's coordinator lease row next). Epoch rules follow Kafka's transaction coordinator: a request names
 * the current producer and epoch, or (for retries whose answer was lost) the one before the last bump.
 */
final class TransactionOperations {

    private final TransactionRows rows;
    private final TransactionEnd end;
    private final CoordinatorLeases coordinators;

    TransactionOperations(Dialect dialect, GroupOffsets groupOffsets, CoordinatorLeases coordinators) {
        this.rows = new TransactionRows(dialect);
        this.end = new TransactionEnd(dialect, groupOffsets);
        this.coordinators = coordinators;
    }

    TransactionRows rows() {
        return rows;
    }

    TransactionOutcome initProducer(
            Connection connection, String transactionalId, int timeoutMs, ProducerEpoch expected, long now)
            throws SQLException {
        Optional<TransactionRow> stored = rows.lock(connection, transactionalId);
        if (stored.isEmpty()) {
            TransactionRow fresh = TransactionRow.fresh(transactionalId, newProducerId(connection), timeoutMs, now);
            rows.insert(connection, fresh);
            return new TransactionOutcome.Done(fresh.producer());
        }
        TransactionRow row = stored.get();
        if (expected != null) {
            if (isRetryOfBump(row, expected)) {
                return new TransactionOutcome.Done(row.producer());
            }
            if (!expected.equals(row.producer())) {
                return new TransactionOutcome.Refused(
                        TransactionError.PRODUCER_FENCED,
                        "transactional id " + transactionalId + " is at producer " + row.producer() + ", not "
                                + expected);
            }
        }
        List<TransactionMarker> markers = List.of();
        if (row.state() == TransactionState.ONGOING) {
            markers = end.end(connection, row, false, now);
        }
        TransactionRow next = bump(connection, row.ended(TransactionState.EMPTY, now), now, expected != null)
                .withTimeout(timeoutMs);
        rows.update(connection, next);
        return new TransactionOutcome.Done(next.producer(), markers);
    }

    TransactionOutcome addPartitions(
            Connection connection,
            String transactionalId,
            ProducerEpoch producer,
            Collection<TopicPartition> partitions,
            long now)
            throws SQLException {
        Current current = current(connection, transactionalId, producer);
        if (current.refusal() != null) {
            return current.refusal();
        }
        Map<TopicPartition, Long> ids = partitionIds(connection, partitions);
        if (ids.size() < new LinkedHashSet<>(partitions).size()) {
            Set<TopicPartition> unknown = new LinkedHashSet<>(partitions);
            unknown.removeAll(ids.keySet());
            return new TransactionOutcome.UnknownPartitions(unknown);
        }
        TransactionRow row = begin(connection, current.row(), now);
        rows.addPartitions(connection, transactionalId, ids.values());
        return new TransactionOutcome.Done(row.producer());
    }

    TransactionOutcome addOffsets(Connection connection, String transactionalId, ProducerEpoch producer, long now)
            throws SQLException {
        Current current = current(connection, transactionalId, producer);
        if (current.refusal() != null) {
            return current.refusal();
        }
        return new TransactionOutcome.Done(begin(connection, current.row(), now).producer());
    }

    TransactionOutcome commitPendingOffsets(
            Connection connection,
            Dialect dialect,
            String transactionalId,
            ProducerEpoch producer,
            CoordinatorLease coordinator,
            Map<TopicPartition, CommittedOffset> offsets,
            long now)
            throws SQLException {
        Current current = current(connection, transactionalId, producer);
        if (current.refusal() != null) {
            return current.refusal();
        }
        // The member was checked in the coordinator's memory: only valid while its lease still is.
        if (!coordinators.holds(connection, coordinator)) {
            return new TransactionOutcome.Refused(
                    TransactionError.NOT_COORDINATOR,
                    "the coordinator lease of group " + coordinator.groupId() + " is no longer held by "
                            + coordinator.owner() + " at epoch " + coordinator.epoch());
        }
        String groupId = coordinator.groupId();
        TransactionRow row = begin(connection, current.row(), now);
        String upsert = dialect.upsert(
                "pending_offsets",
                List.of("transactional_id", "group_id", "topic_name", "partition_index"),
                List.of("committed_offset", "leader_epoch", "metadata", "commit_timestamp"));
        try (PreparedStatement save = connection.prepareStatement(upsert)) {
            for (Map.Entry<TopicPartition, CommittedOffset> entry : offsets.entrySet()) {
                save.setString(1, transactionalId);
                save.setString(2, groupId);
                save.setString(3, entry.getKey().topic());
                save.setInt(4, entry.getKey().partition());
                save.setLong(5, entry.getValue().offset());
                save.setInt(6, entry.getValue().leaderEpoch());
                save.setString(7, entry.getValue().metadata());
                save.setLong(8, entry.getValue().commitTimestampMs());
                save.addBatch();
            }
            save.executeBatch();
        }
        return new TransactionOutcome.Done(row.producer());
    }

    TransactionOutcome endTransaction(
            Connection connection,
            String transactionalId,
            ProducerEpoch producer,
            boolean commit,
            boolean bumpEpoch,
            long now)
            throws SQLException {
        Optional<TransactionRow> stored = rows.lock(connection, transactionalId);
        if (stored.isEmpty()) {
            return unknownId(transactionalId);
        }
        TransactionRow row = stored.get();
        TransactionState outcome = commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
        if (row.state() == outcome
                && (bumpEpoch ? isRetryOfBump(row, producer) : row.producer().equals(producer))) {
            return new TransactionOutcome.Done(row.producer()); // a retry of an end that applied
        }
        TransactionOutcome refused = refusal(row, producer);
        if (refused != null) {
            return refused;
        }
        boolean abortsNothing = !commit && bumpEpoch && row.state().idle();
        if (row.state() != TransactionState.ONGOING && !abortsNothing) {
            return new TransactionOutcome.Refused(
                    TransactionError.INVALID_TXN_STATE,
                    "transactional id " + transactionalId + " has no open transaction to "
                            + (commit ? "commit" : "abort") + " (state "
                            + row.state().kafkaName() + ")");
        }
        List<TransactionMarker> markers = end.end(connection, row, commit, now);
        TransactionRow next = row.ended(outcome, now);
        if (bumpEpoch) {
            next = bump(connection, next, now, true);
        }
        rows.update(connection, next);
        return new TransactionOutcome.Done(next.producer(), markers);
    }

    TransactionOutcome abortExpired(
            Connection connection, String transactionalId, ProducerEpoch producer, long startedAt, long now)
            throws SQLException {
        Optional<TransactionRow> stored = rows.lock(connection, transactionalId);
        if (stored.isEmpty()) {
            return unknownId(transactionalId);
        }
        TransactionRow row = stored.get();
        TransactionOutcome refused = refusal(row, producer);
        if (refused != null) {
            return refused;
        }
        if (row.state() != TransactionState.ONGOING || row.startedAt() != startedAt) {
            return new TransactionOutcome.Refused(
                    TransactionError.INVALID_TXN_STATE,
                    "transactional id " + transactionalId + " no longer has the transaction begun at " + startedAt
                            + " open (state " + row.state().kafkaName() + ", begun at " + row.startedAt() + ")");
        }
        List<TransactionMarker> markers = end.end(connection, row, false, now);
        TransactionRow next = bump(connection, row.ended(TransactionState.COMPLETE_ABORT, now), now, false);
        rows.update(connection, next);
        return new TransactionOutcome.Done(next.producer(), markers);
    }

    /**
     * Ends the producer's transaction on one partition only. Locks the producer's transactional id row
     * first when it has one (the lock order), so no commit of its batches runs meanwhile.
     */
    TransactionOutcome writeMarker(
            Connection connection, TopicPartition partition, ProducerEpoch producer, boolean commit, long now)
            throws SQLException {
        Map<Long, TransactionRow> owner = rows.lockByProducers(connection, List.of(producer.producerId()));
        Map<TopicPartition, Long> ids = partitionIds(connection, List.of(partition));
        if (ids.isEmpty()) {
            return new TransactionOutcome.UnknownPartitions(Set.of(partition));
        }
        long partitionId = ids.get(partition);
        Long firstOffset =
                TransactionEnd.openPartitions(connection, producer.producerId()).get(partitionId);
        Short openEpoch = producerEpoch(connection, partitionId, producer.producerId());
        if (openEpoch != null && openEpoch > producer.epoch()) {
            return new TransactionOutcome.Refused(
                    TransactionError.PRODUCER_FENCED,
                    "producer " + producer + " is fenced on " + partition + ": its epoch there is " + openEpoch);
        }
        if (firstOffset == null) {
            return new TransactionOutcome.Done(producer);
        }
        List<TransactionMarker> markers =
                end.appendMarkers(connection, producer, Map.of(partitionId, firstOffset), commit, now);
        TransactionRow row = owner.get(producer.producerId());
        if (row != null) {
            try (PreparedStatement delete = connection.prepareStatement(
                    "DELETE FROM transaction_partitions WHERE transactional_id = ? AND partition_id = ?")) {
                delete.setString(1, row.transactionalId());
                delete.setLong(2, partitionId);
                delete.executeUpdate();
            }
        }
        return new TransactionOutcome.Done(producer, markers);
    }

    /** The locked row of a transactional id, or why the request's producer may not act for it. */
    private record Current(TransactionRow row, TransactionOutcome refusal) {}

    private Current current(Connection connection, String transactionalId, ProducerEpoch producer) throws SQLException {
        Optional<TransactionRow> stored = rows.lock(connection, transactionalId);
        if (stored.isEmpty()) {
            return new Current(null, unknownId(transactionalId));
        }
        return new Current(stored.get(), refusal(stored.get(), producer));
    }

    /** Null when {@code producer} is the row's current producer and epoch. */
    static TransactionOutcome refusal(TransactionRow row, ProducerEpoch producer) {
        if (producer.producerId() != row.producerId()) {
            return new TransactionOutcome.Refused(
                    TransactionError.INVALID_PRODUCER_ID_MAPPING,
                    "transactional id " + row.transactionalId() + " belongs to producer id " + row.producerId()
                            + ", not " + producer.producerId());
        }
        if (producer.epoch() != row.epoch()) {
            return new TransactionOutcome.Refused(
                    producer.epoch() < row.epoch()
                            ? TransactionError.PRODUCER_FENCED
                            : TransactionError.INVALID_PRODUCER_EPOCH,
                    "producer " + producer + " of transactional id " + row.transactionalId() + " is not current: epoch "
                            + row.epoch() + " is");
        }
        return null;
    }

    /** Whether {@code request} is the producer and epoch just before the row's last bump. */
    private static boolean isRetryOfBump(TransactionRow row, ProducerEpoch request) {
        boolean sameId = request.producerId() == row.producerId()
                && row.lastEpoch() != TransactionRow.NO_EPOCH
                && request.epoch() == row.lastEpoch();
        boolean overflowed = request.producerId() == row.previousProducerId()
                && request.epoch() == TransactionRow.LAST_EPOCH
                && row.epoch() == 0;
        return sameId || overflowed;
    }

    private TransactionRow begin(Connection connection, TransactionRow row, long now) throws SQLException {
        if (row.state() == TransactionState.ONGOING) {
            return row;
        }
        TransactionRow begun = row.begun(now);
        rows.clearPartitions(connection, row.transactionalId());
        rows.update(connection, begun);
        return begun;
    }

    private static TransactionRow bump(Connection connection, TransactionRow row, long now, boolean retryable)
            throws SQLException {
        return row.bumped(row.exhausted() ? newProducerId(connection) : TransactionRow.NO_PRODUCER_ID, now, retryable);
    }

    private static long newProducerId(Connection connection) throws SQLException {
        return Counters.allocate(connection, Counters.PRODUCER_ID, 1);
    }

    private static TransactionOutcome unknownId(String transactionalId) {
        return new TransactionOutcome.Refused(
                TransactionError.INVALID_PRODUCER_ID_MAPPING,
                "transactional id " + transactionalId + " has no producer: call InitProducerId first");
    }

    private static Short producerEpoch(Connection connection, long partitionId, long producerId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT producer_epoch FROM producer_state WHERE partition_id = ? AND producer_id = ?")) {
            select.setLong(1, partitionId);
            select.setLong(2, producerId);
            try (ResultSet result = select.executeQuery()) {
                return result.next() ? result.getShort(1) : null;
            }
        }
    }

    /** The ids of the partitions that exist among {@code partitions}. */
    static Map<TopicPartition, Long> partitionIds(Connection connection, Collection<TopicPartition> partitions)
            throws SQLException {
        Map<TopicPartition, Long> ids = new HashMap<>();
        KeyedSelect.run(
                connection,
                "SELECT t.name, p.partition_index, p.id FROM partitions p JOIN topics t ON t.id = p.topic_id",
                List.of("t.name", "p.partition_index"),
                "",
                new ArrayList<>(new LinkedHashSet<>(partitions)),
                (statement, index, tp) -> {
                    statement.setString(index, tp.topic());
                    statement.setInt(index + 1, tp.partition());
                },
                row -> ids.put(new TopicPartition(row.getString(1), row.getInt(2)), row.getLong(3)));
        return ids;
    }
}
