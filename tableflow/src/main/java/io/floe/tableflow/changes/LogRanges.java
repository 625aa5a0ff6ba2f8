package io.floe.tableflow.changes;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogReads;
import io.floe.core.record.StoredRecord;
import io.floe.tableflow.changes.ChangeQueryException.Reason;
import io.floe.tableflow.source.CommittedLog;
import java.util.function.Supplier;

/**
 * Reads segments of a topic's committed log whole, in offset order, and refuses to leave a hole: when
 * retention or DeleteRecords removed part of a segment, the query fails with the partition and the
 * first offset still available rather than answer without those records.
 */
final class LogRanges {

    /** Receives one record of a segment. */
    @FunctionalInterface
    interface RecordSink {
        void accept(StoredRecord record);
    }

    private final String topic;
    private final CommittedLog log;
    private final LogReads reads;
    private final long bytesPerRead;

    LogRanges(String topic, CommittedLog log, LogReads reads, long bytesPerRead) {
        this.topic = topic;
        this.log = log;
        this.reads = reads;
        this.bytesPerRead = bytesPerRead;
    }

    /** Hands {@code sink} the committed records of {@code segment}, and only those. */
    void read(Segments.Segment segment, RecordSink sink) {
        TopicPartition partition = new TopicPartition(topic, segment.partition());
        long next = segment.from();
        while (next < segment.until()) {
            CommittedLog.Progress progress = log.read(partition, next, segment.until(), bytesPerRead, record -> {
                if (record.offset() < segment.until()) {
                    sink.accept(record); // a batch read whole may reach past the segment
                }
            });
            if (progress.skippedByRetention() > 0 || progress.next() <= next) {
                long logStart = reads.offsets(partition).logStartOffset();
                if (logStart > next) {
                    throw gone(partition, next, logStart);
                }
                if (progress.next() <= next) {
                    throw new IllegalStateException(
                            "reading " + partition + " from offset " + next + " made no progress");
                }
            }
            next = progress.next();
        }
    }

    /** Fails when the log no longer holds every offset of {@code [from, until)} of {@code partition}. */
    void checkHeld(int partition, long from, long until, Supplier<String> advice) {
        if (from >= until) {
            return;
        }
        TopicPartition tp = new TopicPartition(topic, partition);
        long logStart = reads.offsets(tp).logStartOffset();
        if (logStart > from) {
            throw new ChangeQueryException(Reason.GONE, message(tp, from, logStart) + "; " + advice.get());
        }
    }

    long logStart(int partition) {
        return reads.offsets(new TopicPartition(topic, partition)).logStartOffset();
    }

    private static ChangeQueryException gone(TopicPartition partition, long from, long logStart) {
        return new ChangeQueryException(Reason.GONE, message(partition, from, logStart) + "; query from a later point");
    }

    private static String message(TopicPartition partition, long from, long logStart) {
        return "partition " + partition.partition() + " of topic " + partition.topic() + " no longer holds offsets ["
                + from + ", " + logStart + ") that this query replays (removed by retention or DeleteRecords);"
                + " its first offset still available is " + logStart;
    }
}
