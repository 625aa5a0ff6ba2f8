package io.floe.maintenance.keys;

import io.floe.core.record.AbortedBatches;
import io.floe.core.record.BatchFilter;
import io.floe.core.record.DecompressionBuffers;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalLong;

/**
 * Kafka's cleaner rule for one batch at a time, applied by Kafka's own {@code MemoryRecords.filterTo}
 * through {@link BatchFilter} (which keeps the batch's base offset and last offset, re-encodes what it keeps in the batch's
 * compression and recomputes the CRC). A record stays when it is the newest of its key in the map (or
 * its key is not in the map) and either has a value or is a tombstone whose delete horizon has not
 * passed. A tombstone's horizon is stamped into its batch the first time a cleaning keeps it, at
 * that cleaning's time plus {@code delete.retention.ms} (KIP-534), so {@code delete.retention.ms} is
 * measured from the first cleaning that saw the tombstone. Records without a key are removed, as Kafka
 * does on a compacted topic; batches left empty are removed (Floe keeps producer state in the
 * metadata store, not in the log's last batches). Not thread-safe.
 */
final class NewestPerKey extends BatchFilter {

    private final KeyOffsetMap newest;
    private final DecompressionBuffers decompression = DecompressionBuffers.reused();
    private long tombstoneHorizonMs = Long.MAX_VALUE;
    private AbortedBatches aborted = AbortedBatches.of(List.of());

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
        record Rewritten(ByteBuffer bytes, StoredBatch batch, int recordsRemoved) implements Outcome {}

        /** No record left. */
        record Removed(int recordsRemoved) implements Outcome {}
    }

    /** Filters one batch, whose bytes carry its assigned base offset (so record offsets are the log's). */
    Outcome filter(ByteBuffer batchBytes) {
        Filtered result = apply(batchBytes, decompression);
        int removed = result.recordsRead() - result.recordsRetained();
        if (result.recordsRetained() == 0) {
            return new Outcome.Removed(removed);
        }
        ByteBuffer out = result.bytes();
        if (out.equals(batchBytes)) {
            return new Outcome.Unchanged();
        }
        return new Outcome.Rewritten(out, StoredBatch.of(out), removed);
    }

    /** The aborted transactions of the range being filtered: their records are removed. */
    void skip(AbortedBatches abortedBatches) {
        this.aborted = abortedBatches;
    }

    /** The earliest delete horizon of a tombstone this filter kept, or {@link Long#MAX_VALUE}. */
    long tombstoneHorizonMs() {
        return tombstoneHorizonMs;
    }

    @Override
    protected boolean retain(StoredBatch batch, StoredRecord record) {
        if (batch.isControlBatch()) {
            return true;
        }
        if (aborted.aborted(batch)) {
            return false;
        }
        if (!record.hasKey() || record.offset() < newest.get(record.key())) {
            return false;
        }
        if (record.hasValue()) {
            return true;
        }
        // As Kafka's cleaner: a tombstone seen for the first time stays (filterTo stamps its horizon).
        OptionalLong stamped = batch.deleteHorizonMs();
        if (stamped.isPresent() && nowMs() >= stamped.getAsLong()) {
            return false;
        }
        tombstoneHorizonMs = Math.min(tombstoneHorizonMs, stamped.orElse(nowMs() + deleteRetentionMs()));
        return true;
    }
}
