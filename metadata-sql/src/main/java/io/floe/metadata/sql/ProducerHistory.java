package io.floe.metadata.sql;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * One producer's state on one partition while a commit runs: its epoch, last sequence and last few
 * batches. Starts as stored and changes as the commit appends the producer's batches, so later
 * batches of the same commit are checked against earlier ones.
 */
final class ProducerHistory {

    /** Kafka producers have at most 5 requests in flight per partition, so 5 batches cover every retry. */
    static final int RECENT_BATCHES_MAX = 5;

    private final long storedUpToOffset;
    private final Deque<RecentBatch> recent;
    private short epoch;
    private int lastSequence;
    private boolean changed;

    /** {@code stored} in offset order; {@code storedUpToOffset} is the base offset of the newest stored one (-1 if none). */
    ProducerHistory(short epoch, int lastSequence, List<RecentBatch> stored) {
        this.epoch = epoch;
        this.lastSequence = lastSequence;
        this.recent = new ArrayDeque<>(stored);
        this.storedUpToOffset = stored.isEmpty() ? -1 : stored.get(stored.size() - 1).baseOffset();
    }

    /** A producer with nothing stored, about to record its first batch. */
    static ProducerHistory fresh(short epoch) {
        return new ProducerHistory(epoch, -1, List.of());
    }

    short epoch() {
        return epoch;
    }

    int lastSequence() {
        return lastSequence;
    }

    Optional<RecentBatch> find(int baseSequence, int lastSequence) {
        return recent.stream()
                .filter(b -> b.baseSequence() == baseSequence && b.lastSequence() == lastSequence)
                .findFirst();
    }

    /** Records an appended batch; a new epoch starts a new history. */
    void record(short batchEpoch, RecentBatch batch) {
        if (batchEpoch != epoch) {
            recent.clear();
            epoch = batchEpoch;
        }
        lastSequence = batch.lastSequence();
        recent.addLast(batch);
        while (recent.size() > RECENT_BATCHES_MAX) {
            recent.removeFirst();
        }
        changed = true;
    }

    boolean changed() {
        return changed;
    }

    /** Base offset of the oldest batch kept; stored rows below it are to be deleted. */
    long oldestKeptOffset() {
        return recent.isEmpty() ? Long.MAX_VALUE : recent.peekFirst().baseOffset();
    }

    /** Kept batches that are not stored yet (offsets only grow, so they are the ones above the stored ones). */
    List<RecentBatch> unstored() {
        List<RecentBatch> unstored = new ArrayList<>();
        for (RecentBatch batch : recent) {
            if (batch.baseOffset() > storedUpToOffset) {
                unstored.add(batch);
            }
        }
        return unstored;
    }
}
