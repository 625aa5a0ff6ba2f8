package io.floe.metadata.sql;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * One producer's state on one partition while a commit runs: its epoch, the first and last sequence
 * that epoch stored, and the last few batches. Starts as stored and changes as the commit appends the
 * producer's batches, so later batches of the same commit are checked against earlier ones.
 *
 * <p>The last batches are stored in one column as {@code baseSequence:lastSequence:baseOffset}
 * entries, oldest first, separated by {@code ;}: they are only ever read and written whole, with
 * their state row.
 */
final class ProducerHistory {

    /** Kafka producers have at most 5 requests in flight per partition, so 5 batches cover every retry. */
    static final int RECENT_BATCHES_MAX = 5;

    /** The first sequence of a state row written before it was recorded. */
    static final int UNKNOWN_SEQUENCE = -1;

    private final Deque<RecentBatch> recent;
    private short epoch;
    private int firstSequence;
    private int lastSequence;
    private long txnFirstOffset;
    private boolean changed;

    ProducerHistory(short epoch, int firstSequence, int lastSequence, List<RecentBatch> recent, long txnFirstOffset) {
        this.epoch = epoch;
        this.firstSequence = firstSequence;
        this.lastSequence = lastSequence;
        this.recent = new ArrayDeque<>(recent);
        this.txnFirstOffset = txnFirstOffset;
    }

    ProducerHistory(short epoch, int firstSequence, int lastSequence, List<RecentBatch> recent) {
        this(epoch, firstSequence, lastSequence, recent, NO_TRANSACTION);
    }

    /** The first offset of the producer's open transaction on the partition when none is open. */
    static final long NO_TRANSACTION = -1;

    /** A producer with nothing stored, about to record its first batch. */
    static ProducerHistory fresh(short epoch) {
        return new ProducerHistory(epoch, UNKNOWN_SEQUENCE, UNKNOWN_SEQUENCE, List.of());
    }

    /** Parses {@link #encodeRecent()}'s format by hand: this runs for every producer of every commit. */
    static ProducerHistory decode(
            short epoch, int firstSequence, int lastSequence, String recentBatches, long txnFirstOffset) {
        List<RecentBatch> recent = new ArrayList<>(RECENT_BATCHES_MAX);
        int start = 0;
        while (start < recentBatches.length()) {
            int end = recentBatches.indexOf(';', start);
            end = end < 0 ? recentBatches.length() : end;
            int first = recentBatches.indexOf(':', start);
            int second = recentBatches.indexOf(':', first + 1);
            recent.add(new RecentBatch(
                    Integer.parseInt(recentBatches, start, first, 10),
                    Integer.parseInt(recentBatches, first + 1, second, 10),
                    Long.parseLong(recentBatches, second + 1, end, 10)));
            start = end + 1;
        }
        return new ProducerHistory(epoch, firstSequence, lastSequence, recent, txnFirstOffset);
    }

    static ProducerHistory decode(short epoch, int firstSequence, int lastSequence, String recentBatches) {
        return decode(epoch, firstSequence, lastSequence, recentBatches, NO_TRANSACTION);
    }

    String encodeRecent() {
        StringBuilder encoded = new StringBuilder(RECENT_BATCHES_MAX * 24);
        for (RecentBatch batch : recent) {
            if (encoded.length() > 0) {
                encoded.append(';');
            }
            encoded.append(batch.baseSequence())
                    .append(':')
                    .append(batch.lastSequence())
                    .append(':')
                    .append(batch.baseOffset());
        }
        return encoded.toString();
    }

    short epoch() {
        return epoch;
    }

    /** The first sequence this epoch stored on the partition, or {@link #UNKNOWN_SEQUENCE}. */
    int firstSequence() {
        return firstSequence;
    }

    int lastSequence() {
        return lastSequence;
    }

    /**
     * Whether the sequences {@code baseSequence..lastSequence} were all stored in this epoch: they lie
     * within the epoch's first to last stored sequence, which the producer rules keep contiguous.
     * Counted from the epoch's first sequence, so a range is never taken as stored across a wrap.
     */
    boolean stored(int baseSequence, int lastSequence) {
        if (firstSequence == UNKNOWN_SEQUENCE || this.lastSequence == UNKNOWN_SEQUENCE) {
            return false;
        }
        long base = sinceFirst(baseSequence);
        long last = sinceFirst(lastSequence);
        return base <= last && last <= sinceFirst(this.lastSequence);
    }

    private long sinceFirst(int sequence) {
        return Math.floorMod((long) sequence - firstSequence, 1L << 31);
    }

    Optional<RecentBatch> find(int baseSequence, int lastSequence) {
        for (RecentBatch batch : recent) {
            if (batch.baseSequence() == baseSequence && batch.lastSequence() == lastSequence) {
                return Optional.of(batch);
            }
        }
        return Optional.empty();
    }

    /** Records an appended batch; a new epoch starts a new history. */
    void record(short batchEpoch, RecentBatch batch) {
        if (batchEpoch != epoch || lastSequence == UNKNOWN_SEQUENCE) {
            recent.clear();
            epoch = batchEpoch;
            firstSequence = batch.baseSequence();
        }
        lastSequence = batch.lastSequence();
        recent.addLast(batch);
        while (recent.size() > RECENT_BATCHES_MAX) {
            recent.removeFirst();
        }
        changed = true;
    }

    /** The first offset of the producer's open transaction on the partition, or {@link #NO_TRANSACTION}. */
    long txnFirstOffset() {
        return txnFirstOffset;
    }

    /** Records a transactional batch appended at {@code baseOffset}: it opens a transaction unless one is open. */
    void inTransaction(long baseOffset) {
        if (txnFirstOffset == NO_TRANSACTION) {
            txnFirstOffset = baseOffset;
            changed = true;
        }
    }

    boolean changed() {
        return changed;
    }
}
