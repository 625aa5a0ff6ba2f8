package io.floe.tableflow.source;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectStore;
import io.floe.core.record.AbortedBatches;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a partition's committed records in offset order straight from the batch index and the object
 * store, as a fetch does: consecutive batches of one object in one range read, each batch's CRC
 * checked and its assigned offset patched in. Records of aborted transactions are skipped, as a
 * read-committed consumer skips them; callers read below the last stable offset only.
 */
public final class CommittedLog {

    private static final Logger LOGGER = LoggerFactory.getLogger(CommittedLog.class);

    /** Batch rows asked of the metadata store at a time. */
    private static final int BATCHES_PER_QUERY = 500;

    private final LogReads metadata;
    private final ObjectStore objects;

    public CommittedLog(LogReads metadata, ObjectStore objects) {
        this.metadata = metadata;
        this.objects = objects;
    }

    /** Receives records in offset order. */
    @FunctionalInterface
    public interface RecordSink {
        void accept(StoredRecord record);
    }

    /**
     * Hands {@code sink} the records of {@code partition} from {@code from} (inclusive) up to
     * {@code until} (exclusive, a last stable offset read earlier), whole batches at a time, stopping after
     * the batch that brings the bytes read to {@code maxBytes}. Returns the offset to read next (the
     * end of the last batch read, or {@code until} when no batch is left below it: offsets removed by
     * key compaction are skipped like that), the stored bytes read, and how many offsets it skipped
     * because the log start had passed them, which it also logs: never silently.
     *
     * @throws CorruptBatchException when a batch fails its CRC check
     */
    public Progress read(TopicPartition partition, long from, long until, long maxBytes, RecordSink sink) {
        AbortedBatches aborted;
        try {
            aborted = AbortedBatches.of(metadata.abortedTransactions(partition, from, until));
        } catch (OffsetOutOfRangeException e) {
            // Retention passed the start since the caller read the log start: the next round starts there.
            return new Progress(from, 0, 0);
        }
        long next = from;
        long bytes = 0;
        long skipped = 0;
        while (next < until && bytes < maxBytes) {
            List<BatchCoordinate> batches = new ArrayList<>();
            for (BatchCoordinate batch : metadata.batches(partition, next, BATCHES_PER_QUERY)) {
                if (batch.baseOffset() < until) {
                    batches.add(batch);
                }
            }
            long firstFound = batches.isEmpty() ? until : batches.get(0).baseOffset();
            if (firstFound > next) {
                skipped += belowLogStart(partition, next, firstFound);
            }
            if (batches.isEmpty()) {
                return new Progress(until, bytes, skipped);
            }
            int i = 0;
            while (i < batches.size() && bytes < maxBytes) {
                int end = runEnd(batches, i);
                BatchCoordinate first = batches.get(i);
                BatchCoordinate last = batches.get(end - 1);
                long start = first.range().position();
                ByteBuffer run = objects.get(
                        first.object(), new ByteRange(start, (int) (last.range().end() - start)));
                for (int b = i; b < end && bytes < maxBytes; b++) {
                    BatchCoordinate coordinate = batches.get(b);
                    ByteBuffer batchBytes = writable(run.slice(
                            (int) (coordinate.range().position() - start),
                            coordinate.range().length()));
                    if (!StoredBatch.isIntact(batchBytes)) {
                        throw new CorruptBatchException("batch at offset " + coordinate.baseOffset() + " of "
                                + partition + " in " + coordinate.object() + " failed its CRC check");
                    }
                    batchBytes.putLong(0, coordinate.baseOffset());
                    deliver(batchBytes, next, aborted, sink);
                    next = Math.max(next, coordinate.nextOffset());
                    bytes += coordinate.range().length();
                }
                i = end;
            }
        }
        return new Progress(Math.min(next, until), bytes, skipped);
    }

    /**
     * Where a read stopped: the next offset to read, the stored bytes it read and the offsets it had
     * to skip because the log start had passed them (retention or DeleteRecords removed them before
     * the read got there).
     */
    public record Progress(long next, long bytes, long skippedByRetention) {}

    /**
     * The offsets of the gap {@code [next, firstFound)} that lie below the partition's log start, logged.
     * A gap above the log start is key compaction's (removed batches leave one) and loses nothing; one
     * below it holds records removed before this read got to them. The log start is read after the
     * batches, and it only grows, so it covers every offset the batches query found removed.
     */
    private long belowLogStart(TopicPartition partition, long next, long firstFound) {
        long logStart = metadata.offsets(partition).logStartOffset();
        long lost = Math.min(logStart, firstFound) - next;
        if (lost <= 0) {
            return 0;
        }
        LOGGER.warn(
                "records removed below the log start before the table read them topic={} partition={}"
                        + " offsets=[{}, {}) logStart={}",
                partition.topic(),
                partition.partition(),
                next,
                next + lost,
                logStart);
        return lost;
    }

    private static void deliver(ByteBuffer batchBytes, long from, AbortedBatches aborted, RecordSink sink) {
        for (StoredBatch batch : StoredBatch.all(batchBytes)) {
            if (batch.isControlBatch() || aborted.aborted(batch)) {
                continue;
            }
            for (StoredRecord record : batch.records()) {
                if (record.offset() >= from) {
                    sink.accept(record);
                }
            }
        }
    }

    /** The end (exclusive) of the run of batches from {@code i} that lie back to back in one object. */
    private static int runEnd(List<BatchCoordinate> batches, int i) {
        int end = i + 1;
        while (end < batches.size()) {
            BatchCoordinate previous = batches.get(end - 1);
            BatchCoordinate batch = batches.get(end);
            if (!batch.object().equals(previous.object())
                    || batch.range().position() != previous.range().end()
                    || batch.range().end() - batches.get(i).range().position() > Integer.MAX_VALUE) {
                break;
            }
            end++;
        }
        return end;
    }

    /** Object-store buffers may be read-only views; patching the base offset needs a writable one. */
    private static ByteBuffer writable(ByteBuffer buffer) {
        if (!buffer.isReadOnly()) {
            return buffer;
        }
        ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
        copy.put(buffer.duplicate()).flip();
        return copy;
    }
}
