package io.floe.core.record;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecords.FilterResult;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * Removes records from a batch by a rule of the subclass, through Kafka's own
 * {@code MemoryRecords.filterTo}: what it keeps keeps the batch's base and last offset and is
 * re-encoded in the batch's compression with a new CRC; a tombstone kept for the first time gets its
 * delete horizon ({@code nowMs + deleteRetentionMs}) stamped into the batch (KIP-534); a batch left
 * with no record is dropped. Not thread-safe.
 */
public abstract class BatchFilter {

    private final long nowMs;
    private final long deleteRetentionMs;
    private final KafkaFilter kafkaFilter;

    protected BatchFilter(long nowMs, long deleteRetentionMs) {
        this.nowMs = nowMs;
        this.deleteRetentionMs = deleteRetentionMs;
        this.kafkaFilter = new KafkaFilter(nowMs, deleteRetentionMs);
    }

    /** What filtering one batch did: the records read and kept, and the kept batch's bytes (empty if none). */
    public record Filtered(int recordsRead, int recordsRetained, ByteBuffer bytes) {}

    /** True when {@code record} of {@code batch} stays. */
    protected abstract boolean retain(StoredBatch batch, StoredRecord record);

    protected final long nowMs() {
        return nowMs;
    }

    protected final long deleteRetentionMs() {
        return deleteRetentionMs;
    }

    /** Filters the one batch in {@code batchBytes}, decompressing into {@code buffers}. */
    public final Filtered apply(ByteBuffer batchBytes, DecompressionBuffers buffers) {
        MemoryRecords records = MemoryRecords.readableRecords(batchBytes.duplicate());
        FilterResult result = records.filterTo(
                kafkaFilter,
                ByteBuffer.allocate(batchBytes.remaining()),
                buffers.supplier(),
                Records.SOFT_MAX_ARRAY_LENGTH);
        return new Filtered(
                result.messagesRead(),
                result.messagesRetained(),
                result.outputBuffer().flip());
    }

    /** Kafka's side of the filter, calling {@link #retain} with views of its batch and record. */
    private final class KafkaFilter extends MemoryRecords.RecordFilter {

        private RecordBatch lastBatch;
        private StoredBatch lastView;

        KafkaFilter(long nowMs, long deleteRetentionMs) {
            super(nowMs, deleteRetentionMs);
        }

        @Override
        protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
            return new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);
        }

        @Override
        protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
            if (batch != lastBatch) {
                lastBatch = batch;
                lastView = StoredBatch.wrap(batch);
            }
            return retain(lastView, new StoredRecord(record));
        }
    }
}
