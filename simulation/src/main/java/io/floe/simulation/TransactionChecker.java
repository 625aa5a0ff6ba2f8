package io.floe.simulation;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.LogReads;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The invariants of transactions, on the shared stores and the {@link History}:
 *
 * <ul>
 *   <li>NoAbortedRead: no read_committed consumer (nor the table, see {@link TableChecker}) returns a
 *       record of a transaction aborted or still open, and no transaction its client never committed
 *       ends committed;
 *   <li>TxnAtomicVisibility: a read_committed consumer past a committed transaction's marker returned
 *       all of the transaction's records in that partition, not a strict part of them;
 *   <li>LsoBounds: the store's last stable offset never goes back nor passes an open transaction's
 *       first offset, and no read_committed answer goes past it;
 *   <li>NoCommittedLoss: a transaction answered committed is committed whole in the log, one with an
 *       unknown outcome is committed whole or not at all, and a read_committed consumer past a
 *       committed transaction's marker returned something of it; TxnOffsets: a group's offset is
 *       that of a committed transaction, never older than the last one answered committed;
 *   <li>TransactionsEnd: after the heal phase no transaction is left open (the timeout loop ends them).
 * </ul>
 *
 * A transaction's fate is read from the log itself: a transactional batch belongs to the first marker of
 * its producer after it in its partition, and is open while there is none.
 */
final class TransactionChecker {

    /** A transactional record's fate as the log tells it. */
    enum Fate {
        COMMITTED,
        ABORTED,
        OPEN
    }

    private final LogReads metadata;
    private final ConsumerOffsets offsets;
    private final MemoryObjectStore objects;
    private final History history;
    private final Set<TopicPartition> partitions;
    private final Map<BatchCoordinate, Long> producerOfBatch = new HashMap<>();
    private final Map<TopicPartition, LongSupplier> readCommittedPositions = new HashMap<>();
    private final Map<String, Fate> fates = new HashMap<>();
    private final Map<String, Long> markerOf = new HashMap<>();
    private final Map<String, History.Position> positions = new HashMap<>();
    private final Map<TopicPartition, Set<Long>> withoutRows = new HashMap<>();
    private long offsetsExpireFrom = Long.MAX_VALUE;
    private LongSupplier clock = () -> 0;
    private final Set<String> expiredGroups = new HashSet<>();

    /** {@code partitions}: those transactional producers write to; none in a run without transactions. */
    TransactionChecker(
            LogReads metadata,
            ConsumerOffsets offsets,
            MemoryObjectStore objects,
            History history,
            Set<TopicPartition> partitions) {
        this.metadata = metadata;
        this.offsets = offsets;
        this.objects = objects;
        this.history = history;
        this.partitions = new HashSet<>(partitions);
    }

    /** Checks the transactions of {@code added} from now on too (their last stable offset, their fates). */
    void watch(Collection<TopicPartition> added) {
        partitions.addAll(added);
    }

    /**
     * From virtual time {@code nanos} on (as {@code clock} tells it) the groups' offsets may have
     * expired: every transaction that sent offsets ended before, and its group has had no member since.
     */
    void offsetsExpireFrom(long nanos, LongSupplier clock) {
        this.offsetsExpireFrom = nanos;
        this.clock = clock;
    }

    /** Groups found without the offset a committed transaction gave them, excused by offset expiry. */
    long expiredOffsetsExcused() {
        return expiredGroups.size();
    }

    /** A read_committed consumer of {@code tp} and where it is. */
    void watch(TopicPartition tp, LongSupplier position) {
        readCommittedPositions.put(tp, position);
    }

    /** The producer id of a transactional batch, else -1 (also when its object is missing: reported apart). */
    long producerOf(BatchCoordinate row) {
        if (!partitions.contains(row.topicPartition())) {
            return -1;
        }
        return producerOfBatch.computeIfAbsent(row, r -> {
            if (!objects.contains(r.object())) {
                return -1L;
            }
            StoredBatch batch = StoredBatch.of(objects.get(r.object(), r.range()));
            return batch.isTransactional() ? batch.producerId() : -1L;
        });
    }

    /** LsoBounds on the store, after a step: {@code openSince} is each open transaction's first offset. */
    void checkStableOffset(TopicPartition tp, LogOffsets before, LogOffsets now, Map<Long, Long> openSince) {
        if (before != null && now.lastStableOffset() < before.lastStableOffset()) {
            history.violation("LsoBounds", tp + " last stable offset went from " + before + " to " + now);
        }
        for (Map.Entry<Long, Long> open : openSince.entrySet()) {
            if (now.lastStableOffset() > open.getValue()) {
                history.violation(
                        "LsoBounds",
                        tp + " last stable offset " + now.lastStableOffset() + " passes producer " + open.getKey()
                                + "'s open transaction from " + open.getValue());
            }
        }
    }

    /**
     * LsoBounds on one read_committed answer as its consumer got it: its last stable offset and the last
     * record it returned (-1: none) lie below the store's last stable offset, which never goes back, so
     * an answer right when it was made is still right when it arrives.
     */
    void stableAnswer(TopicPartition tp, LogOffsets answered, long lastReturned, String agent) {
        LogOffsets stored = metadata.offsets(tp);
        if (answered.lastStableOffset() > stored.lastStableOffset()) {
            history.violation(
                    "LsoBounds",
                    agent + " answered a read_committed fetch of " + tp + " with last stable offset "
                            + answered.lastStableOffset() + " above the store's " + stored);
        }
        if (lastReturned >= stored.lastStableOffset()) {
            history.violation(
                    "LsoBounds",
                    agent + " returned " + tp + " offset " + lastReturned + " to a read_committed fetch, at or above"
                            + " the store's last stable offset " + stored.lastStableOffset());
        }
    }

    /** A transactional value's fate as of the last {@link #readLog}; null for a value not in the log. */
    Fate fate(String value) {
        return fates.get(value);
    }

    /** The offsets of {@code tp} no table row may hold, as of the last {@link #readLog}: markers, aborted, open. */
    Set<Long> withoutRows(TopicPartition tp) {
        return withoutRows.getOrDefault(tp, Set.of());
    }

    /** Reads the transactional partitions' logs and checks every transaction against what clients saw. */
    void readLog() {
        if (partitions.isEmpty()) {
            return;
        }
        fates.clear();
        markerOf.clear();
        positions.clear();
        withoutRows.clear();
        for (TopicPartition tp : partitions) {
            readFates(tp);
        }
        checkReadCommitted();
        for (History.Transaction transaction : history.transactions().values()) {
            checkEnding(transaction);
            checkVisibility(transaction);
        }
        checkGroupOffsets();
    }

    /** After the heal phase: no transaction is left open. */
    void checkEnded() {
        fates.forEach((value, fate) -> {
            if (fate == Fate.OPEN) {
                history.violation(
                        "TransactionsEnd",
                        value + " at " + positions.get(value) + " is in a transaction still open after the heal phase");
            }
        });
    }

    private void readFates(TopicPartition tp) {
        Map<Long, List<String>> pending = new TreeMap<>();
        Set<Long> without = new HashSet<>();
        for (LogEntry entry : metadata.entries(List.of(new BatchesQuery(tp, 0, Integer.MAX_VALUE)))
                .get(0)) {
            if (entry instanceof TransactionMarker marker) {
                without.add(marker.offset());
                for (String value : pending.getOrDefault(marker.producerId(), List.of())) {
                    fates.put(value, marker.commit() ? Fate.COMMITTED : Fate.ABORTED);
                    markerOf.put(value, marker.offset());
                    if (!marker.commit()) {
                        without.add(positions.get(value).offset());
                    }
                }
                pending.remove(marker.producerId());
                continue;
            }
            BatchCoordinate row = (BatchCoordinate) entry;
            if (!objects.contains(row.object())) {
                continue; // reported by the checker
            }
            for (StoredBatch batch : StoredBatch.all(objects.get(row.object(), row.range()))) {
                if (!batch.isTransactional()) {
                    continue;
                }
                for (StoredRecord record : batch.records()) {
                    String value = History.valueOf(record);
                    positions.put(
                            value, new History.Position(tp, row.baseOffset() + (record.offset() - batch.baseOffset())));
                    pending.computeIfAbsent(batch.producerId(), id -> new ArrayList<>())
                            .add(value);
                }
            }
        }
        pending.values()
                .forEach(values -> values.forEach(value -> {
                    fates.put(value, Fate.OPEN);
                    without.add(positions.get(value).offset());
                }));
        withoutRows.put(tp, without);
    }

    /** NoAbortedRead: what read_committed consumers returned was committed. */
    private void checkReadCommitted() {
        for (TopicPartition tp : partitions) {
            history.readCommitted(tp).forEach((offset, value) -> {
                History.Transaction transaction = history.transactionOf(value);
                Fate fate = fates.get(value);
                if (transaction != null && fate != Fate.COMMITTED) {
                    history.violation(
                            "NoAbortedRead",
                            "a read_committed consumer returned " + value + " at " + tp + " " + offset + " of "
                                    + transaction + ", which the log holds as " + fate);
                }
            });
        }
    }

    /** NoCommittedLoss and NoAbortedRead: the log's outcome of a transaction agrees with what its client saw. */
    private void checkEnding(History.Transaction transaction) {
        int total = 0;
        int committed = 0;
        String notCommitted = null;
        for (List<String> values : transaction.values.values()) {
            for (String value : values) {
                total++;
                if (fates.get(value) == Fate.COMMITTED) {
                    committed++;
                } else if (notCommitted == null) {
                    notCommitted = value + " (" + fates.get(value) + " at " + positions.get(value) + ")";
                }
            }
        }
        switch (transaction.ending) {
            case COMMITTED -> {
                if (committed < total) {
                    history.violation(
                            "NoCommittedLoss",
                            transaction + " was answered committed, but " + (total - committed) + " of its " + total
                                    + " records are not committed in the log, such as " + notCommitted);
                }
            }
            case UNKNOWN -> {
                if (committed > 0 && committed < total) {
                    history.violation(
                            "NoCommittedLoss",
                            transaction + " has " + committed + " of its " + total + " records committed, not all"
                                    + " or none; not committed: " + notCommitted);
                }
            }
            case NOT_COMMITTED, ABORTED -> {
                if (committed > 0) {
                    history.violation(
                            "NoAbortedRead",
                            transaction + " has " + committed + " records committed in the log, but its client"
                                    + " never committed it");
                }
            }
        }
    }

    /** TxnAtomicVisibility and NoCommittedLoss, per partition, for consumers past the transaction's marker. */
    private void checkVisibility(History.Transaction transaction) {
        transaction.values.forEach((tp, values) -> {
            LongSupplier position = readCommittedPositions.get(tp);
            List<String> committed = values.stream()
                    .filter(value -> fates.get(value) == Fate.COMMITTED)
                    .toList();
            if (position == null || committed.isEmpty()) {
                return;
            }
            long marker = markerOf.get(committed.get(0));
            if (position.getAsLong() <= marker) {
                return;
            }
            Map<Long, String> read = history.readCommitted(tp);
            long returned = committed.stream()
                    .filter(value -> value.equals(read.get(positions.get(value).offset())))
                    .count();
            if (returned == 0) {
                history.violation(
                        "NoCommittedLoss",
                        "the read_committed consumer of " + tp + " is at " + position.getAsLong()
                                + ", past the marker at "
                                + marker + " of " + transaction + ", and returned none of its " + committed.size()
                                + " records there");
            } else if (returned < committed.size()) {
                history.violation(
                        "TxnAtomicVisibility",
                        "the read_committed consumer of " + tp + " is at " + position.getAsLong()
                                + ", past the marker at "
                                + marker + " of " + transaction + ", and returned " + returned + " of its "
                                + committed.size() + " records there");
            }
        });
    }

    /** TxnOffsets: each group's offset came from a committed transaction, and the latest answered committed. */
    private void checkGroupOffsets() {
        Map<String, Long> latestCommitted = new TreeMap<>();
        Set<String> groups = new HashSet<>();
        history.transactions().forEach((name, transaction) -> {
            String group = SimTransactionalProducer.GROUP_PREFIX + name.substring(0, name.indexOf('#'));
            groups.add(group);
            if (transaction.offsetSent >= 0 && transaction.ending == History.Ending.COMMITTED) {
                latestCommitted.merge(group, transaction.offsetSent, Math::max);
            }
        });
        for (String group : groups) {
            CommittedOffset stored = offsets.committedOffsets(group).get(SimTransactionalProducer.OFFSETS_PARTITION);
            long latest = latestCommitted.getOrDefault(group, -1L);
            if (stored == null) {
                if (latest >= 0 && clock.getAsLong() >= offsetsExpireFrom) {
                    expiredGroups.add(group);
                } else if (latest >= 0) {
                    history.violation(
                            "TxnOffsets", group + " has no offset, but transaction " + latest + " committed one");
                }
                continue;
            }
            String name = group.substring(SimTransactionalProducer.GROUP_PREFIX.length()) + "#" + stored.offset();
            History.Transaction from = history.transactions().get(name);
            boolean committed = from != null
                    && from.values.values().stream()
                            .flatMap(List::stream)
                            .allMatch(value -> fates.get(value) == Fate.COMMITTED);
            if (from == null || from.offsetSent != stored.offset() || !committed) {
                history.violation(
                        "TxnOffsets",
                        group + " holds offset " + stored.offset() + " of " + from + ", which did not commit offsets");
            } else if (stored.offset() < latest) {
                history.violation(
                        "TxnOffsets",
                        group + " holds offset " + stored.offset() + ", older than that of committed transaction "
                                + latest);
            }
        }
    }
}
