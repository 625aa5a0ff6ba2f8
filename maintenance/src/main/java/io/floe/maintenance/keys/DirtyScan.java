package io.floe.maintenance.keys;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.object.ObjectKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Finds how much of a partition's dirty section one pass may clean. It is offered the batch rows from
 * the clean offset on, in offset order, and stops at the first that must wait:
 * <ul>
 *   <li>a batch of the emulated active segment ({@link ActiveSegment}), which Kafka never cleans;</li>
 *   <li>a batch reaching past the last stable offset (a transaction still open may end below it);</li>
 *   <li>a batch with a record newer than {@code min.compaction.lag.ms} (its max timestamp), when that
 *       is set;</li>
 *   <li>a batch in an object younger than the compaction minimum age (the tail being written, which
 *       tailing consumers read from agents' caches);</li>
 *   <li>a batch whose records would overfill the key map, or the row limit.</li>
 * </ul>
 * Pure.
 */
final class DirtyScan {

    private final long activeSegment;
    private final long lastStableOffset;
    private final long maxTimestampAtMost;
    private final Instant objectsCreatedBefore;
    private final long recordsMax;
    private final int rowsMax;
    private final List<BatchCoordinate> cleanable = new ArrayList<>();
    private OptionalLong oldestTimestamp = OptionalLong.empty();
    private long bytes;
    private long records;
    private long end = -1;

    /**
     * @param activeSegment the first offset of the emulated active segment: batches from there wait
     * @param lastStableOffset the partition's last stable offset when its rows were read: a batch
     *     reaching past it waits
     * @param maxTimestampAtMost batches with a larger max timestamp wait ({@code now - min.compaction.lag.ms},
     *     {@link Long#MAX_VALUE} when the lag is 0)
     * @param objectsCreatedBefore batches in objects created later wait
     * @param recordsMax offsets one pass may map (the key map's capacity)
     * @param rowsMax batches one pass may map
     */
    DirtyScan(
            long activeSegment,
            long lastStableOffset,
            long maxTimestampAtMost,
            Instant objectsCreatedBefore,
            long recordsMax,
            int rowsMax) {
        this.activeSegment = activeSegment;
        this.lastStableOffset = lastStableOffset;
        this.maxTimestampAtMost = maxTimestampAtMost;
        this.objectsCreatedBefore = objectsCreatedBefore;
        this.recordsMax = recordsMax;
        this.rowsMax = rowsMax;
    }

    /** Offers the next row; false when it must wait, which ends the scan. */
    boolean offer(BatchCoordinate row) {
        if (end >= 0) {
            throw new IllegalStateException("the scan ended at offset " + end);
        }
        if (oldestTimestamp.isEmpty()) {
            oldestTimestamp = OptionalLong.of(row.maxTimestamp());
        }
        boolean waits = row.baseOffset() >= activeSegment
                || row.nextOffset() > lastStableOffset
                || row.maxTimestamp() > maxTimestampAtMost
                || ObjectKeys.createdAt(row.object())
                        .map(created -> created.isAfter(objectsCreatedBefore))
                        .orElse(false)
                || records + row.recordCount() > recordsMax
                || cleanable.size() >= rowsMax;
        if (waits) {
            end = row.baseOffset();
            return false;
        }
        cleanable.add(row);
        bytes += row.range().length();
        records += row.recordCount();
        return true;
    }

    /** The scan's result; {@code start} is where the scan began (the first offset not known to be clean). */
    DirtySection result(long start) {
        long cleanableEnd = end >= 0
                ? end
                : cleanable.isEmpty()
                        ? start
                        : cleanable.get(cleanable.size() - 1).nextOffset();
        return new DirtySection(List.copyOf(cleanable), cleanableEnd, bytes, oldestTimestamp);
    }

    /**
     * What one pass may clean.
     *
     * @param cleanable the dirty batches whose keys the pass maps, in offset order
     * @param end the pass cleans the batches that start below it; the clean offset after the pass
     * @param bytes the bytes of {@code cleanable}
     * @param oldestTimestamp the max timestamp of the first dirty batch, cleanable or not (for the lag)
     */
    record DirtySection(List<BatchCoordinate> cleanable, long end, long bytes, OptionalLong oldestTimestamp) {}
}
