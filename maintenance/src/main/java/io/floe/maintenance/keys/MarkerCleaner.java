package io.floe.maintenance.keys;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogRetention;
import io.floe.core.metadata.MarkerCleaning;
import io.micrometer.core.instrument.Counter;
import java.time.Instant;

/**
 * Removes the transaction markers of a cleaned section as Kafka's cleaner does, a page of markers per
 * store transaction ({@link LogRetention#cleanMarkers}): a marker whose transaction has no batch left
 * gets a delete horizon, and goes at the first cleaning after it. Without this a compact-only topic,
 * whose log start retention never moves, would keep one row per transaction ever run in each of its
 * partitions.
 */
final class MarkerCleaner {

    static final int MARKERS_PER_CALL = 1000;

    private final LogRetention retention;
    private final Counter removed;

    MarkerCleaner(LogRetention retention, Counter removed) {
        this.retention = retention;
        this.removed = removed;
    }

    /**
     * What cleaning a section did.
     *
     * @param removed markers removed
     * @param earliestHorizonMs the earliest horizon of a marker kept there ({@link Long#MAX_VALUE} for none)
     */
    record Cleaned(long removed, long earliestHorizonMs) {}

    /** Cleans the markers in {@code [from, to)}; markers found removable get {@code horizon}. */
    Cleaned clean(TopicPartition tp, long from, long to, Instant now, Instant horizon) {
        long earliest = Long.MAX_VALUE;
        long count = 0;
        long next = from;
        while (next < to) {
            MarkerCleaning page = retention.cleanMarkers(tp, next, to, now, horizon, MARKERS_PER_CALL);
            removed.increment(page.removed());
            count += page.removed();
            earliest = Math.min(earliest, page.earliestHorizonMs());
            if (page.nextOffset() <= next) {
                throw new IllegalStateException("marker cleaning of " + tp + " did not move past offset " + next);
            }
            next = page.nextOffset();
        }
        return new Cleaned(count, earliest);
    }
}
