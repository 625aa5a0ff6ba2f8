package io.floe.maintenance.keys;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.TransactionMarker;
import io.floe.core.object.ObjectKeys;
import java.time.Instant;

/**
 * The segment Kafka would be appending a partition's log to, worked out from its entries (batch rows
 * and transaction markers) in offset order, as Kafka's {@code LogSegment.shouldRoll} decides on every
 * append: an entry starts a new segment when the segment it would join holds bytes and
 * <ul>
 *   <li>the entry would take it past {@code segment.bytes};</li>
 *   <li>the entry's timestamp is more than {@code segment.ms} (for a compacted topic at most
 *       {@code max.compaction.lag.ms}) after that of the segment's first entry (a batch's max
 *       timestamp; for a batch without one, the time its object was written); or</li>
 *   <li>its last offset is more than {@link Integer#MAX_VALUE} past the segment's first offset.</li>
 * </ul>
 * Kafka never cleans its active segment, so key compaction cleans nothing from {@link #baseOffset()}
 * on. The entries from there on are as they were appended (compaction never changes them), so the same
 * entries give every agent the same segments. Not thread-safe.
 */
final class ActiveSegment {

    private static final long NO_TIME = Long.MIN_VALUE;

    private long baseOffset;
    private long firstTime = NO_TIME;
    private long bytes;
    private long batchBytes;
    private long nextOffset;

    private ActiveSegment(long baseOffset) {
        this.baseOffset = baseOffset;
        this.nextOffset = baseOffset;
    }

    /** An active segment known to begin at {@code baseOffset}, none of whose entries was seen yet. */
    static ActiveSegment at(long baseOffset) {
        return new ActiveSegment(baseOffset);
    }

    /**
     * The rules of a topic's segments.
     *
     * @param segmentBytes {@code segment.bytes}
     * @param segmentMs {@code segment.ms}, lowered to {@code max.compaction.lag.ms} for a compacted topic
     */
    record Limits(long segmentBytes, long segmentMs) {

        /** Kafka's {@code LogConfig.maxSegmentMs} of a compacted topic. */
        static Limits of(long segmentBytes, long segmentMs, long maxCompactionLagMs) {
            return new Limits(
                    segmentBytes, maxCompactionLagMs > 0 ? Math.min(segmentMs, maxCompactionLagMs) : segmentMs);
        }
    }

    /**
     * Takes the next entry of the log (the one at {@link #nextOffset()}, or the first at or after it);
     * returns true when it began a new segment.
     */
    boolean append(LogEntry entry, Limits limits) {
        if (entry.lastOffset() < nextOffset) {
            return false;
        }
        long time = time(entry);
        boolean rolls = bytes > 0
                && (bytes + entry.sizeInBytes() > limits.segmentBytes()
                        || (firstTime != NO_TIME && time != NO_TIME && time - firstTime > limits.segmentMs())
                        || entry.lastOffset() - baseOffset > Integer.MAX_VALUE);
        if (rolls) {
            baseOffset = entry.baseOffset();
            bytes = 0;
            batchBytes = 0;
        }
        if (bytes == 0) {
            firstTime = time;
        }
        bytes += entry.sizeInBytes();
        if (entry instanceof BatchCoordinate) {
            batchBytes += entry.sizeInBytes();
        }
        nextOffset = entry.nextOffset();
        return rolls;
    }

    /** The first offset of the active segment. */
    long baseOffset() {
        return baseOffset;
    }

    /** The offset after the last entry taken: where the next read of the log continues. */
    long nextOffset() {
        return nextOffset;
    }

    /** The bytes of the batches in the active segment (markers not counted: they are in no object). */
    long batchBytes() {
        return batchBytes;
    }

    private static long time(LogEntry entry) {
        if (entry instanceof TransactionMarker marker) {
            return marker.timestamp();
        }
        BatchCoordinate batch = (BatchCoordinate) entry;
        if (batch.maxTimestamp() >= 0) {
            return batch.maxTimestamp();
        }
        return ObjectKeys.createdAt(batch.object()).map(Instant::toEpochMilli).orElse(NO_TIME);
    }
}
