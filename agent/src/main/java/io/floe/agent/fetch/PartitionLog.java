package io.floe.agent.fetch;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The agent's in-memory view of one partition: its markers and an index of the batches this agent
 * committed since the view began (the tail that consumers read), at most a given number of batches.
 * Batches below {@link #indexStart()} are looked up in the metadata store. Thread-safe.
 */
final class PartitionLog {

    private final TopicPartition topicPartition;
    private final TreeMap<Long, BatchCoordinate> tail = new TreeMap<>();
    private long logStartOffset;
    private long highWatermark;
    private long indexStart;
    /** Average bytes of the batches the last read below the index found (0: none yet), to size the next. */
    private long storedBatchBytes;

    PartitionLog(TopicPartition topicPartition, LogOffsets loaded) {
        this.topicPartition = topicPartition;
        this.logStartOffset = loaded.logStartOffset();
        this.highWatermark = loaded.highWatermark();
        this.indexStart = loaded.highWatermark();
    }

    TopicPartition topicPartition() {
        return topicPartition;
    }

    synchronized LogOffsets offsets() {
        return new LogOffsets(logStartOffset, highWatermark);
    }

    /** The lowest offset the in-memory index answers for; lower offsets need the store. */
    synchronized long indexStart() {
        return indexStart;
    }

    /**
     * Adds a batch this agent just committed and keeps the index to its last {@code indexBatchesMax}
     * batches. Commits arrive in offset order; a batch that does not continue the index (another
     * writer committed in between) makes the index restart at it.
     */
    synchronized void append(BatchCoordinate batch, long logStartAfterCommit, int indexBatchesMax) {
        if (batch.baseOffset() < highWatermark) {
            return;
        }
        if (batch.baseOffset() != highWatermark) {
            tail.clear();
            indexStart = batch.baseOffset();
        }
        tail.put(batch.baseOffset(), batch);
        highWatermark = batch.nextOffset();
        logStartOffset = Math.max(logStartOffset, logStartAfterCommit);
        while (tail.size() > indexBatchesMax) {
            Map.Entry<Long, BatchCoordinate> first = tail.pollFirstEntry();
            indexStart = first.getValue().nextOffset();
        }
    }

    /**
     * Raises the log start to {@code newLogStart} (records were deleted below it) and drops indexed
     * batches wholly below it. False when {@code newLogStart} is past this view's high watermark: the
     * view is behind the store and must be reloaded.
     */
    synchronized boolean advanceLogStart(long newLogStart) {
        if (newLogStart > highWatermark) {
            return false;
        }
        logStartOffset = Math.max(logStartOffset, newLogStart);
        while (!tail.isEmpty() && tail.firstEntry().getValue().nextOffset() <= logStartOffset) {
            Map.Entry<Long, BatchCoordinate> first = tail.pollFirstEntry();
            indexStart = first.getValue().nextOffset();
        }
        return true;
    }

    /**
     * Indexed batches with {@code lastOffset >= fromOffset}, in offset order, until {@code bytesMax}
     * bytes are collected (at least one batch when there is one). Only valid for
     * {@code fromOffset >= indexStart()}.
     */
    synchronized List<BatchCoordinate> batchesFrom(long fromOffset, long bytesMax) {
        List<BatchCoordinate> found = new ArrayList<>();
        Long start = tail.floorKey(fromOffset);
        Map<Long, BatchCoordinate> view = start == null ? tail : tail.tailMap(start, true);
        long bytes = 0;
        for (BatchCoordinate batch : view.values()) {
            if (batch.lastOffset() < fromOffset) {
                continue;
            }
            if (!found.isEmpty() && bytes + batch.range().length() > bytesMax) {
                break;
            }
            found.add(batch);
            bytes += batch.range().length();
        }
        return found;
    }

    /** Batches in the index. */
    synchronized int indexedBatches() {
        return tail.size();
    }

    synchronized long storedBatchBytes() {
        return storedBatchBytes;
    }

    synchronized void storedBatchBytes(long averageBytes) {
        storedBatchBytes = averageBytes;
    }

    /** Bytes of indexed batches at or after {@code fromOffset} (an estimate for min_bytes). */
    synchronized long bytesAvailableFrom(long fromOffset) {
        if (fromOffset >= highWatermark) {
            return 0;
        }
        if (fromOffset < indexStart) {
            return Long.MAX_VALUE;
        }
        Long start = tail.floorKey(fromOffset);
        long bytes = 0;
        for (BatchCoordinate batch : (start == null ? tail : tail.tailMap(start, true)).values()) {
            bytes += batch.range().length();
        }
        return bytes;
    }
}
