package io.floe.maintenance.keys;

import java.nio.ByteBuffer;
import java.util.OptionalLong;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecords.FilterResult;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * Kafka's cleaner rule for one batch at a time, applied by Kafka's own {@link MemoryRecords#filterTo}
 * (which keeps the batch's base offset and last offset, re-encodes what it keeps in the batch's
 * compression and recomputes the CRC). A record stays when it is the newest of its key in the map (or
 * its key is not in the map) and either has a value or is a tombstone whose delete horizon has not
 * passed. A tombstone's horizon is stamped into its batch the first time a cleaning keeps it, at
 * that cleaning's time plus {@code delete.retention.ms} (KIP-534), so {@code delete.retention.ms} is
 * measured from the first cleaning that saw the tombstone. Records without a key are removed, as Kafka
 * does on a compacted topic; batches left empty are removed (Floe keeps producer state in the
 * metadata store, not in the log's last batches). Not thread-safe.
 */
final class NewestPerKey extends MemoryRecords.RecordFilter {

    private final KeyOffsetMap newest;
    private final BufferSupplier decompression = BufferSupplier.create();
    private long tombstoneHorizonMs = Long.MAX_VALUE;

    NewestPerKey(KeyOffsetMap newest, long nowMs, long deleteRetentionMs) {
        super(nowMs, deleteRetentionMs);
        this.newest = newest;
    }

    /** What filtering did to one batch. */
    sealed interface Outcome {
        int recordsRemoved();

        /** Nothing to change: the batch stays as it is. */
        record Unchanged() implements Outcome {
            @Override
            public int recordsRemoved() {
                return 0;
            }
        }

        /** Rewritten with fewer records, or with its tombstones' delete horizon stamped in. */
        record Rewritten(ByteBuffer bytes, MutableRecordBatch batch, int recordsRemoved) implements Outcome {}

        /** No record left. */
        record Removed(int recordsRemoved) implements Outcome {}
    }

    /** Filters one batch, whose bytes carry its assigned base offset (so record offsets are the log's). */
    Outcome filter(ByteBuffer batchBytes) {
        MemoryRecords records = MemoryRecords.readableRecords(batchBytes.duplicate());
        FilterResult result = records.filterTo(this, ByteBuffer.allocate(batchBytes.remaining()), decompression,
                Records.SOFT_MAX_ARRAY_LENGTH);
        int removed = result.messagesRead() - result.messagesRetained();
        if (result.messagesRetained() == 0) {
            return new Outcome.Removed(removed);
        }
        ByteBuffer out = result.outputBuffer().flip();
        if (out.equals(batchBytes)) {
            return new Outcome.Unchanged();
        }
        return new Outcome.Rewritten(out, MemoryRecords.readableRecords(out.duplicate()).batches().iterator().next(),
                removed);
    }

    /** The earliest delete horizon of a tombstone this filter kept, or {@link Long#MAX_VALUE}. */
    long tombstoneHorizonMs() {
        return tombstoneHorizonMs;
    }

    @Override
    protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
        return new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);
    }

    @Override
    protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
        if (batch.isControlBatch()) {
            return true;
        }
        if (!record.hasKey() || record.offset() < newest.get(record.key())) {
            return false;
        }
        if (record.hasValue()) {
            return true;
        }
        // As Kafka's cleaner: a tombstone seen for the first time stays (filterTo stamps its horizon).
        OptionalLong stamped = batch.deleteHorizonMs();
        if (stamped.isPresent() && currentTime >= stamped.getAsLong()) {
            return false;
        }
        tombstoneHorizonMs = Math.min(tombstoneHorizonMs, stamped.orElse(currentTime + deleteRetentionMs));
        return true;
    }
}
