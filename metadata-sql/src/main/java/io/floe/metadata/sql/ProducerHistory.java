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
 *
 * <p>The last batches are stored in one column as {@code baseSequence:lastSequence:baseOffset}
 * entries, oldest first, separated by {@code ;}: they are only ever read and written whole, with
 * their state row.
 */
final class ProducerHistory {

    /** Kafka producers have at most 5 requests in flight per partition, so 5 batches cover every retry. */
    static final int RECENT_BATCHES_MAX = 5;

    private final Deque<RecentBatch> recent;
    private short epoch;
    private int lastSequence;
    private boolean changed;

    ProducerHistory(short epoch, int lastSequence, List<RecentBatch> recent) {
        this.epoch = epoch;
        this.lastSequence = lastSequence;
        this.recent = new ArrayDeque<>(recent);
    }

    /** A producer with nothing stored, about to record its first batch. */
    static ProducerHistory fresh(short epoch) {
        return new ProducerHistory(epoch, -1, List.of());
    }

    /** Parses {@link #encodeRecent()}'s format by hand: this runs for every producer of every commit. */
    static ProducerHistory decode(short epoch, int lastSequence, String recentBatches) {
        List<RecentBatch> recent = new ArrayList<>(RECENT_BATCHES_MAX);
        int start = 0;
        while (start < recentBatches.length()) {
            int end = recentBatches.indexOf(';', start);
            end = end < 0 ? recentBatches.length() : end;
            int first = recentBatches.indexOf(':', start);
            int second = recentBatches.indexOf(':', first + 1);
            recent.add(new RecentBatch(Integer.parseInt(recentBatches, start, first, 10),
                    Integer.parseInt(recentBatches, first + 1, second, 10),
                    Long.parseLong(recentBatches, second + 1, end, 10)));
            start = end + 1;
        }
        return new ProducerHistory(epoch, lastSequence, recent);
    }

    String encodeRecent() {
        StringBuilder encoded = new StringBuilder(RECENT_BATCHES_MAX * 24);
        for (RecentBatch batch : recent) {
            if (encoded.length() > 0) {
                encoded.append(';');
            }
            encoded.append(batch.baseSequence()).append(':')
                    .append(batch.lastSequence()).append(':')
                    .append(batch.baseOffset());
        }
        return encoded.toString();
    }

    short epoch() {
        return epoch;
    }

    int lastSequence() {
        return lastSequence;
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
}
