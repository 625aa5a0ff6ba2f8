package io.floe.core.record;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Builds an uncompressed v2 batch the way a Kafka producer would, for Floe's own producers (the
 * simulation's, benchmarks' and tests'): base offset 0, create times as given.
 */
public final class NewBatch {

    /** One record to put in a batch; {@code key} may be null, {@code value} null for a tombstone. */
    public record Entry(long timestamp, byte[] key, byte[] value) {}

    private NewBatch() {}

    /** A batch of {@code entries} without producer id. */
    public static ByteBuffer of(List<Entry> entries) {
        return MemoryRecords.withRecords(Compression.NONE, simple(entries)).buffer();
    }

    /** An idempotent producer's batch: {@code producerId}, {@code epoch}, sequences from {@code baseSequence}. */
    public static ByteBuffer idempotent(long producerId, short epoch, int baseSequence, List<Entry> entries) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, epoch, baseSequence, simple(entries))
                .buffer();
    }

    /** A transactional producer's batch: as {@link #idempotent}, with the transactional attribute. */
    public static ByteBuffer transactional(long producerId, short epoch, int baseSequence, List<Entry> entries) {
        return MemoryRecords.withTransactionalRecords(
                        Compression.NONE, producerId, epoch, baseSequence, simple(entries))
                .buffer();
    }

    private static SimpleRecord[] simple(List<Entry> entries) {
        SimpleRecord[] records = new SimpleRecord[entries.size()];
        for (int i = 0; i < records.length; i++) {
            Entry entry = entries.get(i);
            records[i] = new SimpleRecord(entry.timestamp(), entry.key(), entry.value());
        }
        return records;
    }
}
