package io.floe.agent.fetch;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The agent's in-memory view of one partition: its markers and an index of the entries (batches and
 * transaction markers) this agent committed since the view began (the tail that consumers read), at
 * most a given number of entries. Entries below {@link #indexStart()} are looked up in the metadata
 * store. Thread-safe.
 *
 * <p>The view's last stable offset is never ahead of the truth as of its high watermark: it is the
 * smallest of the first offsets of the open transactions it knows (begun by this agent's commits, or
 * read from the store) and of a floor below which it cannot vouch for the others (a store read's last
 * stable offset, or where a gap of entries it never saw begins). A view whose floor is unset knows
 * every open transaction ({@link #knowsOpenTransactions()}).
 */
final class PartitionLog {

    private static final long NO_FLOOR = Long.MAX_VALUE;

    private final TopicPartition topicPartition;
    private final TreeMap<Long, LogEntry> tail = new TreeMap<>();
    private long logStartOffset;
    private long highWatermark;
    private long indexStart;
    /** Average bytes of the batches the last read below the index found (0: none yet), to size the next. */
    private long storedBatchBytes;
    /** Open transactions the view knows: producer id to the transaction's first offset in the partition. */
    private final Map<Long, Long> openTransactions = new HashMap<>();
    /** No open transaction the view does not know begins below this; {@link #NO_FLOOR} when it knows them all. */
    private long stableFloor;
    /** The view saw every entry from here to its high watermark, and no abort marker among them. */
    private long noAbortsFrom;

    /** A view loaded from the store's markers: it knows no open transaction, so an unstable log gets a floor. */
    PartitionLog(TopicPartition topicPartition, LogOffsets loaded) {
        this.topicPartition = topicPartition;
        this.logStartOffset = loaded.logStartOffset();
        this.highWatermark = loaded.highWatermark();
        this.indexStart = loaded.highWatermark();
        this.stableFloor = loaded.unstable() ? loaded.lastStableOffset() : NO_FLOOR;
        this.noAbortsFrom = loaded.highWatermark();
    }

    /**
     * A view begun by a commit at {@code highWatermark}, as if loaded just before it: it knows nothing of
     * the transactions below, so its last stable offset stays at the log start until the store says more.
     */
    static PartitionLog begunAt(TopicPartition topicPartition, long logStartOffset, long highWatermark) {
        PartitionLog log = new PartitionLog(topicPartition, new LogOffsets(logStartOffset, highWatermark));
        log.stableFloor = logStartOffset;
        return log;
    }

    TopicPartition topicPartition() {
        return topicPartition;
    }

    synchronized LogOffsets offsets() {
        long stable = Math.min(stableFloor, highWatermark);
        for (long first : openTransactions.values()) {
            stable = Math.min(stable, first);
        }
        return new LogOffsets(logStartOffset, Math.max(logStartOffset, stable), highWatermark);
    }

    /** Whether the view knows every open transaction of the partition as of its high watermark. */
    synchronized boolean knowsOpenTransactions() {
        return stableFloor == NO_FLOOR;
    }

    /** Whether an abort marker may end a transaction whose range reaches {@code fromOffset} or later. */
    synchronized boolean mayHaveAbortsFrom(long fromOffset) {
        return fromOffset < noAbortsFrom;
    }

    /** The lowest offset the in-memory index answers for; lower offsets need the store. */
    synchronized long indexStart() {
        return indexStart;
    }

    /**
     * Adds a batch this agent just committed and keeps the index to its last {@code indexEntriesMax}
     * entries. Commits arrive in offset order; an entry that does not continue the index (another
     * writer committed in between) makes the index restart at it. {@code transactionalProducerId} is
     * the producer of a transactional batch, negative for other batches: its transaction begins at the
     * batch unless the view knows it open already.
     */
    synchronized void append(
            BatchCoordinate batch, long logStartAfterCommit, int indexEntriesMax, long transactionalProducerId) {
        if (add(batch, indexEntriesMax)) {
            logStartOffset = Math.max(logStartOffset, logStartAfterCommit);
            if (transactionalProducerId >= 0) {
                openTransactions.putIfAbsent(transactionalProducerId, batch.baseOffset());
            }
        }
    }

    /** Adds a marker the store wrote: it ends its producer's open transaction. */
    synchronized void append(TransactionMarker marker, int indexEntriesMax) {
        if (add(marker, indexEntriesMax)) {
            openTransactions.remove(marker.producerId());
            if (!marker.commit()) {
                noAbortsFrom = marker.nextOffset();
            }
        }
    }

    /** Adds the entry at the end; false when it is not past the end (seen already). */
    private boolean add(LogEntry entry, int indexEntriesMax) {
        if (entry.baseOffset() < highWatermark) {
            return false;
        }
        if (entry.baseOffset() != highWatermark) {
            // Entries the view never saw lie in between: transactions may have begun there, aborts ended.
            tail.clear();
            indexStart = entry.baseOffset();
            stableFloor = Math.min(stableFloor, highWatermark);
            noAbortsFrom = entry.baseOffset();
        }
        tail.put(entry.baseOffset(), entry);
        highWatermark = entry.nextOffset();
        while (tail.size() > indexEntriesMax) {
            Map.Entry<Long, LogEntry> first = tail.pollFirstEntry();
            indexStart = first.getValue().nextOffset();
        }
        return true;
    }

    /**
     * Learns from markers the store returned (not behind this view): their last stable offset holds as
     * of their high watermark and later. When they are as of this view's end, they replace what the
     * view knew about open transactions: all of them when {@code open} is not null (the producers' open
     * transactions, read after {@code stored} with no entry appended in between), else as a floor.
     */
    synchronized void learn(LogOffsets stored, Map<Long, Long> open) {
        if (stored.highWatermark() == highWatermark) {
            if (!stored.unstable() || open != null) {
                openTransactions.clear();
                if (open != null) {
                    openTransactions.putAll(open);
                }
                stableFloor = NO_FLOOR;
            } else if (stableFloor != NO_FLOOR) {
                openTransactions.clear();
                stableFloor = stored.lastStableOffset();
            }
        } else if (stored.highWatermark() < highWatermark && stableFloor != NO_FLOOR) {
            // Every transaction open now began at or after the stored last stable offset.
            stableFloor = Math.max(stableFloor, stored.lastStableOffset());
        }
    }

    /**
     * Raises the log start to {@code newLogStart} (records were deleted below it) and drops indexed
     * entries wholly below it. False when {@code newLogStart} is past this view's high watermark: the
     * view is behind the store and must be reloaded.
     */
    synchronized boolean advanceLogStart(long newLogStart) {
        if (newLogStart > highWatermark) {
            return false;
        }
        logStartOffset = Math.max(logStartOffset, newLogStart);
        while (!tail.isEmpty() && tail.firstEntry().getValue().nextOffset() <= logStartOffset) {
            Map.Entry<Long, LogEntry> first = tail.pollFirstEntry();
            indexStart = first.getValue().nextOffset();
        }
        return true;
    }

    /**
     * Indexed entries with {@code lastOffset >= fromOffset}, in offset order, until {@code bytesMax}
     * bytes are collected (at least one entry when there is one). Only valid for
     * {@code fromOffset >= indexStart()}.
     */
    synchronized List<LogEntry> entriesFrom(long fromOffset, long bytesMax) {
        List<LogEntry> found = new ArrayList<>();
        Long start = tail.floorKey(fromOffset);
        Map<Long, LogEntry> view = start == null ? tail : tail.tailMap(start, true);
        long bytes = 0;
        for (LogEntry entry : view.values()) {
            if (entry.lastOffset() < fromOffset) {
                continue;
            }
            if (!found.isEmpty() && bytes + entry.sizeInBytes() > bytesMax) {
                break;
            }
            found.add(entry);
            bytes += entry.sizeInBytes();
        }
        return found;
    }

    /** Entries in the index. */
    synchronized int indexedEntries() {
        return tail.size();
    }

    synchronized long storedBatchBytes() {
        return storedBatchBytes;
    }

    synchronized void storedBatchBytes(long averageBytes) {
        storedBatchBytes = averageBytes;
    }

    /**
     * Bytes of indexed entries at or after {@code fromOffset} that begin below {@code belowOffset} (an
     * estimate for min_bytes; unbounded below the index).
     */
    synchronized long bytesAvailable(long fromOffset, long belowOffset) {
        if (fromOffset >= Math.min(highWatermark, belowOffset)) {
            return 0;
        }
        if (fromOffset < indexStart) {
            return Long.MAX_VALUE;
        }
        Long start = tail.floorKey(fromOffset);
        long bytes = 0;
        for (LogEntry entry : (start == null ? tail : tail.tailMap(start, true)).values()) {
            if (entry.baseOffset() >= belowOffset) {
                break;
            }
            bytes += entry.sizeInBytes();
        }
        return bytes;
    }
}
