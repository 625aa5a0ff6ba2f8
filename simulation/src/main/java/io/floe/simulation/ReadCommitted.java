package io.floe.simulation;

import io.floe.agent.fetch.PartitionResult;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.record.MarkerBatch;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The Java consumer's read_committed filter (CompletedFetch), pure: from a fetch answer and the
 * consumer's position, the records it returns and its next position. An aborted transaction counts
 * from the first batch its first offset reaches until its producer's abort marker; meanwhile that
 * producer's transactional batches are passed; control batches are never returned.
 */
final class ReadCommitted {

    /** A record returned to the application; {@code value} null for a tombstone. */
    record Record(long offset, String key, String value) {}

    /** What one answer gives: the records in offset order and the position after them. */
    record Read(List<Record> records, long position) {}

    private ReadCommitted() {}

    static Read read(PartitionResult.Data data, long position) {
        PriorityQueue<AbortedTransaction> aborted =
                new PriorityQueue<>(Comparator.comparingLong(AbortedTransaction::firstOffset));
        aborted.addAll(data.abortedTransactions());
        Set<Long> abortedProducers = new HashSet<>();
        List<Record> records = new ArrayList<>();
        long next = position;
        for (StoredBatch batch : StoredBatch.all(data.contiguous())) {
            if (batch.lastOffset() < next) {
                continue;
            }
            if (batch.hasProducerId()) {
                while (!aborted.isEmpty() && aborted.peek().firstOffset() <= batch.lastOffset()) {
                    abortedProducers.add(aborted.poll().producerId());
                }
                if (MarkerBatch.isAbort(batch)) {
                    abortedProducers.remove(batch.producerId());
                }
            }
            boolean passed = batch.isControlBatch()
                    || (batch.isTransactional() && abortedProducers.contains(batch.producerId()));
            if (!passed) {
                for (StoredRecord record : batch.records()) {
                    if (record.offset() >= next) {
                        records.add(new Record(
                                record.offset(),
                                text(record.key(), record.hasKey()),
                                text(record.value(), record.hasValue())));
                    }
                }
            }
            next = batch.lastOffset() + 1;
        }
        return new Read(records, next);
    }

    private static String text(ByteBuffer bytes, boolean present) {
        if (!present) {
            return null;
        }
        byte[] raw = new byte[bytes.remaining()];
        bytes.duplicate().get(raw);
        return new String(raw, StandardCharsets.UTF_8);
    }
}
