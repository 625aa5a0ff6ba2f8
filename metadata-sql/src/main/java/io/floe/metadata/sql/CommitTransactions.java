package io.floe.metadata.sql;

import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.core.transaction.TransactionState;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The transactions of a commit's transactional batches: their transactional ids' rows, locked before
 * anything else the commit locks, checked for each batch and written back with the commit. A batch is
 * admitted only while its epoch is its transactional id's current one and its transaction is open
 * (transaction version 1: with its partition added; version 2: the append adds it and begins the
 * transaction when none is open). A commit without transactional batches reads nothing here.
 */
final class CommitTransactions {

    private static final CommitTransactions NONE = new CommitTransactions(Map.of(), Map.of());

    private final Map<Long, TransactionRow> byProducer;
    private final Map<String, Set<Long>> partitions;
    private final Map<String, TransactionRow> changed = new HashMap<>();
    private final Map<String, Set<Long>> added = new HashMap<>();

    private CommitTransactions(Map<Long, TransactionRow> byProducer, Map<String, Set<Long>> partitions) {
        this.byProducer = byProducer;
        this.partitions = partitions;
    }

    static CommitTransactions load(Connection connection, Dialect dialect, List<BatchAppend> batches)
            throws SQLException {
        Set<Long> producerIds = new LinkedHashSet<>();
        for (BatchAppend batch : batches) {
            if (batch.transaction().transactional()) {
                producerIds.add(batch.producer().producerId());
            }
        }
        if (producerIds.isEmpty()) {
            return NONE;
        }
        TransactionRows rows = new TransactionRows(dialect);
        Map<Long, TransactionRow> byProducer = rows.lockByProducers(connection, List.copyOf(producerIds));
        Map<String, Set<Long>> partitions = new HashMap<>();
        for (TransactionRow row : byProducer.values()) {
            partitions.put(row.transactionalId(), new HashSet<>(rows.partitionIds(connection, row.transactionalId())));
        }
        return new CommitTransactions(new HashMap<>(byProducer), partitions);
    }

    /** Null when the transactional {@code batch} may be appended to partition {@code partitionId}, else why not. */
    AppendResult.Failed check(BatchAppend batch, long partitionId) {
        ProducerEpoch producer = new ProducerEpoch(
                batch.producer().producerId(), batch.producer().producerEpoch());
        TransactionRow row = byProducer.get(producer.producerId());
        if (row == null) {
            return new AppendResult.Failed(
                    AppendError.INVALID_TXN_STATE,
                    "no transactional id holds producer id " + producer.producerId() + " (transactional batch for "
                            + batch.topicPartition() + ")");
        }
        TransactionOutcome refused = TransactionOperations.refusal(row, producer);
        if (refused instanceof TransactionOutcome.Refused refusal) {
            return new AppendResult.Failed(AppendError.PRODUCER_FENCED, refusal.message());
        }
        if (batch.transaction() == TransactionalAppend.JOINS_TRANSACTION) {
            return null;
        }
        if (row.state() != TransactionState.ONGOING
                || !partitions.get(row.transactionalId()).contains(partitionId)) {
            return new AppendResult.Failed(
                    AppendError.INVALID_TXN_STATE,
                    batch.topicPartition() + " is not in the open transaction of transactional id "
                            + row.transactionalId() + " (state " + row.state().kafkaName()
                            + "): add it with AddPartitionsToTxn first");
        }
        return null;
    }

    /** Records an admitted batch: with transaction version 2 it joins (and may begin) the transaction. */
    void admitted(BatchAppend batch, long partitionId, long now) {
        if (batch.transaction() != TransactionalAppend.JOINS_TRANSACTION) {
            return;
        }
        TransactionRow row = byProducer.get(batch.producer().producerId());
        if (row.state() != TransactionState.ONGOING) {
            row = row.begun(now);
            byProducer.put(row.producerId(), row);
            changed.put(row.transactionalId(), row);
            partitions.get(row.transactionalId()).clear();
            added.computeIfAbsent(row.transactionalId(), id -> new LinkedHashSet<>());
        }
        if (partitions.get(row.transactionalId()).add(partitionId)) {
            added.computeIfAbsent(row.transactionalId(), id -> new LinkedHashSet<>())
                    .add(partitionId);
        }
    }

    void write(Connection connection, Dialect dialect) throws SQLException {
        if (changed.isEmpty() && added.isEmpty()) {
            return;
        }
        TransactionRows rows = new TransactionRows(dialect);
        for (TransactionRow row : changed.values()) {
            rows.clearPartitions(connection, row.transactionalId());
            rows.update(connection, row);
        }
        for (Map.Entry<String, Set<Long>> entry : added.entrySet()) {
            rows.addPartitions(connection, entry.getKey(), entry.getValue());
        }
    }
}
