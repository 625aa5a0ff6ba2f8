package io.floe.core.record;

import io.floe.core.log.AbortedTransaction;
import java.util.List;

/**
 * Which stored batches of a partition belong to aborted transactions, by the partition's aborted
 * ranges ({@link io.floe.core.metadata.LogReads#abortedTransactions}): a transactional batch of a
 * producer whose aborted range holds the batch's offset. Readers that take only committed records
 * (Tableflow, key compaction) skip those, as a read-committed consumer does.
 */
public final class AbortedBatches {

    private static final AbortedBatches NONE = new AbortedBatches(List.of());

    private final List<AbortedTransaction> aborted;

    private AbortedBatches(List<AbortedTransaction> aborted) {
        this.aborted = aborted;
    }

    /** {@code aborted}: the partition's aborted ranges that meet the offsets to be read. */
    public static AbortedBatches of(List<AbortedTransaction> aborted) {
        return aborted.isEmpty() ? NONE : new AbortedBatches(List.copyOf(aborted));
    }

    /** Whether {@code batch} (with its assigned base offset) holds aborted records. */
    public boolean aborted(StoredBatch batch) {
        if (aborted.isEmpty() || !batch.isTransactional() || batch.isControlBatch()) {
            return false;
        }
        long offset = batch.baseOffset();
        for (AbortedTransaction transaction : aborted) {
            if (transaction.producerId() == batch.producerId()
                    && transaction.firstOffset() <= offset
                    && offset < transaction.markerOffset()) {
                return true;
            }
        }
        return false;
    }
}
