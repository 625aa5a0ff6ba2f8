package io.floe.testkit.transaction;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.Transactions;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionError;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.core.transaction.TransactionState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The {@link Transactions} role in memory, following its contract closely enough for unit tests of
 * its callers: producer ids and epochs with fencing and KIP-360 retries, the open transaction's
 * partitions and pending offsets, ends that bump the epoch. Simplified: every partition added to a
 * transaction counts as written (so gets a marker), markers take offsets from a counter per
 * partition, and committed offsets are kept here ({@link #committedOffsets}). Thread-safe.
 */
public final class InMemoryTransactions implements Transactions {

    private final Predicate<TopicPartition> partitionExists;
    private final Map<String, Row> rows = new TreeMap<>();
    private final Map<TopicPartition, Long> nextOffsets = new HashMap<>();
    private final Map<String, Map<TopicPartition, CommittedOffset>> committed = new HashMap<>();
    private long nextProducerId = 1000;

    /** Every partition exists. */
    public InMemoryTransactions() {
        this(partition -> true);
    }

    public InMemoryTransactions(Predicate<TopicPartition> partitionExists) {
        this.partitionExists = partitionExists;
    }

    private static final class Row {
        final String id;
        ProducerEpoch producer;
        ProducerEpoch previous;
        TransactionState state = TransactionState.EMPTY;
        int timeoutMs;
        long startedAtMs = TransactionDescription.NOT_STARTED;
        long updatedAtMs;
        final Set<TopicPartition> partitions = new TreeSet<>();
        final Map<String, Map<TopicPartition, CommittedOffset>> pending = new TreeMap<>();

        Row(String id) {
            this.id = id;
        }

        TransactionDescription describe() {
            return new TransactionDescription(
                    id, producer, state, timeoutMs, startedAtMs, updatedAtMs, partitions, pending.keySet());
        }
    }

    @Override
    public synchronized TransactionOutcome initProducer(
            String transactionalId, int timeoutMs, ProducerEpoch expected, Instant now) {
        Row row = rows.get(transactionalId);
        if (row == null) {
            row = new Row(transactionalId);
            row.producer = new ProducerEpoch(nextProducerId++, (short) 0);
            row.timeoutMs = timeoutMs;
            row.updatedAtMs = now.toEpochMilli();
            rows.put(transactionalId, row);
            return new TransactionOutcome.Done(row.producer);
        }
        if (expected != null && !expected.equals(row.producer)) {
            if (expected.equals(row.previous)) {
                return new TransactionOutcome.Done(row.producer);
            }
            return new TransactionOutcome.Refused(
                    TransactionError.PRODUCER_FENCED, "producer " + expected + " is not " + row.producer);
        }
        List<TransactionMarker> markers = row.state == TransactionState.ONGOING ? end(row, false, now) : List.of();
        row.timeoutMs = timeoutMs;
        bump(row, now);
        return new TransactionOutcome.Done(row.producer, markers);
    }

    @Override
    public synchronized TransactionOutcome addPartitions(
            String transactionalId, ProducerEpoch producer, Collection<TopicPartition> partitions, Instant now) {
        Row row = rows.get(transactionalId);
        Optional<TransactionOutcome> refused = check(row, producer);
        if (refused.isPresent()) {
            return refused.get();
        }
        Set<TopicPartition> unknown = new HashSet<>();
        partitions.stream().filter(partitionExists.negate()).forEach(unknown::add);
        if (!unknown.isEmpty()) {
            return new TransactionOutcome.UnknownPartitions(unknown);
        }
        begin(row, now);
        row.partitions.addAll(partitions);
        return new TransactionOutcome.Done(row.producer);
    }

    @Override
    public synchronized TransactionOutcome addOffsets(
            String transactionalId, ProducerEpoch producer, String groupId, Instant now) {
        Row row = rows.get(transactionalId);
        Optional<TransactionOutcome> refused = check(row, producer);
        if (refused.isPresent()) {
            return refused.get();
        }
        begin(row, now);
        return new TransactionOutcome.Done(row.producer);
    }

    @Override
    public synchronized TransactionOutcome commitPendingOffsets(
            String transactionalId,
            ProducerEpoch producer,
            String groupId,
            Map<TopicPartition, CommittedOffset> offsets,
            Instant now) {
        Row row = rows.get(transactionalId);
        Optional<TransactionOutcome> refused = check(row, producer);
        if (refused.isPresent()) {
            return refused.get();
        }
        begin(row, now);
        row.pending.computeIfAbsent(groupId, g -> new HashMap<>()).putAll(offsets);
        return new TransactionOutcome.Done(row.producer);
    }

    @Override
    public synchronized TransactionOutcome endTransaction(
            String transactionalId, ProducerEpoch producer, boolean commit, boolean bumpEpoch, Instant now) {
        Row row = rows.get(transactionalId);
        TransactionState decided = commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
        if (row != null
                && row.state == decided
                && (bumpEpoch ? producer.equals(row.previous) : producer.equals(row.producer))) {
            return new TransactionOutcome.Done(row.producer);
        }
        Optional<TransactionOutcome> refused = check(row, producer);
        if (refused.isPresent()) {
            return refused.get();
        }
        if (row.state != TransactionState.ONGOING) {
            return new TransactionOutcome.Refused(
                    TransactionError.INVALID_TXN_STATE, transactionalId + " has no open transaction: " + row.state);
        }
        List<TransactionMarker> markers = end(row, commit, now);
        if (bumpEpoch) {
            bump(row, now);
        }
        return new TransactionOutcome.Done(row.producer, markers);
    }

    @Override
    public synchronized TransactionOutcome abortExpired(String transactionalId, ProducerEpoch producer, Instant now) {
        Row row = rows.get(transactionalId);
        if (row == null || !row.producer.equals(producer) || !row.describe().expiredAt(now.toEpochMilli())) {
            return new TransactionOutcome.Refused(
                    TransactionError.INVALID_TXN_STATE, "no expired transaction of " + producer);
        }
        List<TransactionMarker> markers = end(row, false, now);
        bump(row, now);
        return new TransactionOutcome.Done(row.producer, markers);
    }

    @Override
    public synchronized TransactionOutcome writeMarker(
            TopicPartition partition, ProducerEpoch producer, boolean commit, int coordinatorEpoch, Instant now) {
        for (Row row : rows.values()) {
            if (row.producer.producerId() == producer.producerId()
                    && row.state == TransactionState.ONGOING
                    && row.partitions.contains(partition)) {
                if (row.producer.epoch() > producer.epoch()) {
                    return new TransactionOutcome.Refused(
                            TransactionError.PRODUCER_FENCED, "producer " + row.producer + " is newer");
                }
                row.partitions.remove(partition);
                return new TransactionOutcome.Done(
                        producer, List.of(marker(partition, row.producer, commit, coordinatorEpoch, now)));
            }
        }
        return new TransactionOutcome.Done(producer);
    }

    @Override
    public synchronized Optional<TransactionDescription> transaction(String transactionalId) {
        return Optional.ofNullable(rows.get(transactionalId)).map(Row::describe);
    }

    @Override
    public synchronized List<TransactionDescription> transactions() {
        return rows.values().stream().map(Row::describe).toList();
    }

    @Override
    public synchronized List<TransactionDescription> expiredTransactions(Instant now) {
        return rows.values().stream()
                .map(Row::describe)
                .filter(transaction -> transaction.expiredAt(now.toEpochMilli()))
                .sorted((a, b) -> Long.compare(a.startedAtMs(), b.startedAtMs()))
                .toList();
    }

    @Override
    public synchronized Set<TopicPartition> pendingOffsets(String groupId) {
        Set<TopicPartition> pending = new HashSet<>();
        rows.values().stream()
                .filter(row -> row.state == TransactionState.ONGOING)
                .forEach(row -> pending.addAll(
                        row.pending.getOrDefault(groupId, Map.of()).keySet()));
        return pending;
    }

    /** The offsets committed transactions moved into {@code groupId}'s committed offsets. */
    public synchronized Map<TopicPartition, CommittedOffset> committedOffsets(String groupId) {
        return Map.copyOf(committed.getOrDefault(groupId, Map.of()));
    }

    /** Moves the stored start of {@code transactionalId}'s open transaction, for timeout tests. */
    public synchronized void startedAt(String transactionalId, long startedAtMs) {
        rows.get(transactionalId).startedAtMs = startedAtMs;
    }

    private static Optional<TransactionOutcome> check(Row row, ProducerEpoch producer) {
        if (row == null || row.producer.producerId() != producer.producerId()) {
            return Optional.of(new TransactionOutcome.Refused(
                    TransactionError.INVALID_PRODUCER_ID_MAPPING, "producer id " + producer.producerId() + " unknown"));
        } else if (producer.epoch() < row.producer.epoch()) {
            return Optional.of(new TransactionOutcome.Refused(
                    TransactionError.PRODUCER_FENCED, producer + " fenced by " + row.producer));
        } else if (producer.epoch() > row.producer.epoch()) {
            return Optional.of(new TransactionOutcome.Refused(
                    TransactionError.INVALID_PRODUCER_EPOCH, producer + " is newer than " + row.producer));
        }
        return Optional.empty();
    }

    private static void begin(Row row, Instant now) {
        if (row.state != TransactionState.ONGOING) {
            row.state = TransactionState.ONGOING;
            row.startedAtMs = now.toEpochMilli();
            row.updatedAtMs = now.toEpochMilli();
        }
    }

    private List<TransactionMarker> end(Row row, boolean commit, Instant now) {
        List<TransactionMarker> markers = new ArrayList<>();
        for (TopicPartition partition : row.partitions) {
            markers.add(marker(partition, row.producer, commit, 0, now));
        }
        if (commit) {
            row.pending.forEach((group, offsets) ->
                    committed.computeIfAbsent(group, g -> new HashMap<>()).putAll(offsets));
        }
        row.partitions.clear();
        row.pending.clear();
        row.state = commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
        row.startedAtMs = TransactionDescription.NOT_STARTED;
        row.updatedAtMs = now.toEpochMilli();
        return markers;
    }

    private void bump(Row row, Instant now) {
        row.previous = row.producer;
        row.producer = row.producer.epoch() >= Short.MAX_VALUE - 1
                ? new ProducerEpoch(nextProducerId++, (short) 0)
                : new ProducerEpoch(row.producer.producerId(), (short) (row.producer.epoch() + 1));
        row.updatedAtMs = now.toEpochMilli();
    }

    private TransactionMarker marker(
            TopicPartition partition, ProducerEpoch producer, boolean commit, int coordinatorEpoch, Instant now) {
        long offset = nextOffsets.merge(partition, 1L, Long::sum) - 1;
        return new TransactionMarker(
                partition,
                offset,
                producer.producerId(),
                producer.epoch(),
                commit,
                offset,
                coordinatorEpoch,
                now.toEpochMilli());
    }
}
