package io.floe.agent.fetch;

import io.floe.agent.cache.ObjectCache;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.LogRetention;
import io.floe.core.object.ObjectStore;
import io.floe.core.record.RecordIterator;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import io.floe.core.topic.UnknownTopicException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * ListOffsets' questions: the markers, the first offset at or after a timestamp, the offset of the
 * largest timestamp; and DeleteRecords' change of the log start. Timestamp questions find the batch
 * in the metadata store, then the record in the batch (which may mean decompressing it). Methods block.
 */
public final class OffsetLookup {

    private final PartitionLogs logs;
    private final LogReads metadata;
    private final LogRetention retention;
    private final ObjectStore objects;
    private final ObjectCache cache;

    public OffsetLookup(
            PartitionLogs logs, LogReads metadata, LogRetention retention, ObjectStore objects, ObjectCache cache) {
        this.logs = logs;
        this.metadata = metadata;
        this.retention = retention;
        this.objects = objects;
        this.cache = cache;
    }

    /**
     * The partition's log start, last stable offset and high watermark, the last stable offset as of
     * the high watermark (see {@link PartitionLogs#stableOffsets}). Blocks on a cache miss, and when the
     * view cannot vouch for the last stable offset.
     */
    public LogOffsets offsets(TopicPartition topicPartition) throws UnknownTopicException {
        return logs.stableOffsets(topicPartition);
    }

    /**
     * The first offset at or above the log start whose record timestamp is {@code >= timestamp}; empty
     * when there is none. Blocks.
     */
    public Optional<TimestampedOffset> firstOffsetAtOrAfter(TopicPartition topicPartition, long timestamp) {
        long logStart = logs.offsets(topicPartition).logStartOffset();
        return metadata.firstBatchAtOrAfter(topicPartition, timestamp)
                .flatMap(batch ->
                        firstRecord(batch, record -> record.offset() >= logStart && record.timestamp() >= timestamp));
    }

    /**
     * Moves the partition's log start up to {@code beforeOffset} in the metadata store and in this
     * agent's view, and returns the log start after (never lower than before). Blocks.
     *
     * @throws io.floe.core.metadata.OffsetOutOfRangeException when the offset is negative or past the high watermark
     */
    public long deleteRecords(TopicPartition topicPartition, long beforeOffset) throws UnknownTopicException {
        long logStart = retention.deleteRecords(topicPartition, beforeOffset);
        logs.onLogStartMoved(topicPartition, logStart);
        return logStart;
    }

    /** The offset and timestamp of the record with the largest timestamp; empty for an empty log. Blocks. */
    public Optional<TimestampedOffset> maxTimestamp(TopicPartition topicPartition) {
        logs.offsets(topicPartition);
        return metadata.batchWithMaxTimestamp(topicPartition)
                .flatMap(batch -> firstRecord(batch, record -> record.timestamp() == batch.maxTimestamp()));
    }

    private Optional<TimestampedOffset> firstRecord(BatchCoordinate coordinate, Predicate<StoredRecord> matches) {
        ByteBuffer bytes = cache.get(coordinate.object(), coordinate.range())
                .orElseGet(() -> objects.get(coordinate.object(), coordinate.range()));
        ByteBuffer copy =
                ByteBuffer.allocate(bytes.remaining()).put(bytes.duplicate()).flip();
        copy.putLong(0, coordinate.baseOffset());
        StoredBatch batch = StoredBatch.of(copy);
        try (RecordIterator records = batch.recordsWithoutKeysOrValues()) {
            while (records.hasNext()) {
                StoredRecord record = records.next();
                if (matches.test(record)) {
                    return Optional.of(new TimestampedOffset(record.offset(), record.timestamp()));
                }
            }
        }
        return Optional.empty();
    }
}
