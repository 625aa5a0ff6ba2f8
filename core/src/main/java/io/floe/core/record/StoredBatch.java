package io.floe.core.record;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * One stored Kafka record batch, viewed in place over its bytes (never copied, never re-encoded):
 * the batch header's facts, its CRC, its records. Malformed bytes surface as kafka-clients'
 * {@link org.apache.kafka.common.KafkaException}s, as they would from Kafka's own classes. Not
 * thread-safe; the bytes must not change while the view is used, except through
 * {@link #stampLogAppendTime}.
 */
public final class StoredBatch {

    /** The only record batch format Floe stores. */
    public static final byte MAGIC_V2 = RecordBatch.MAGIC_VALUE_V2;

    private final MutableRecordBatch batch;

    private StoredBatch(MutableRecordBatch batch) {
        this.batch = batch;
    }

    /** Views {@code bytes} (exactly one batch; the first if more) as a record batch, without copying. */
    public static StoredBatch of(ByteBuffer bytes) {
        Iterator<MutableRecordBatch> batches =
                MemoryRecords.readableRecords(bytes.duplicate()).batches().iterator();
        if (!batches.hasNext()) {
            throw new IllegalArgumentException("no complete record batch in " + bytes.remaining() + " bytes");
        }
        return new StoredBatch(batches.next());
    }

    /** The first complete batch in {@code bytes}, or null when they hold none. */
    public static StoredBatch firstOrNull(ByteBuffer bytes) {
        Iterator<MutableRecordBatch> batches =
                MemoryRecords.readableRecords(bytes.duplicate()).batches().iterator();
        return batches.hasNext() ? new StoredBatch(batches.next()) : null;
    }

    /** Every complete batch in {@code bytes}, in order, each viewed in place. */
    public static List<StoredBatch> all(ByteBuffer bytes) {
        List<StoredBatch> all = new ArrayList<>();
        for (MutableRecordBatch batch : MemoryRecords.readableRecords(bytes).batches()) {
            all.add(new StoredBatch(batch));
        }
        return all;
    }

    /** True when {@code bytes} hold exactly one batch of that size whose CRC matches. */
    public static boolean isIntact(ByteBuffer bytes) {
        try {
            StoredBatch batch = of(bytes);
            return batch.sizeInBytes() == bytes.remaining() && batch.isValid();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The view of a batch kafka-clients handed out within this package (always a mutable one in 4.x). */
    static StoredBatch wrap(RecordBatch batch) {
        return new StoredBatch((MutableRecordBatch) batch);
    }

    public byte magic() {
        return batch.magic();
    }

    public long baseOffset() {
        return batch.baseOffset();
    }

    public long lastOffset() {
        return batch.lastOffset();
    }

    public int sizeInBytes() {
        return batch.sizeInBytes();
    }

    /** The record count the batch header declares, or null for a batch format without one. */
    public Integer countOrNull() {
        return batch.countOrNull();
    }

    public long maxTimestamp() {
        return batch.maxTimestamp();
    }

    /** True when the CRC matches. */
    public boolean isValid() {
        return batch.isValid();
    }

    /** Throws kafka-clients' {@code CorruptRecordException} when the CRC does not match. */
    public void ensureValid() {
        batch.ensureValid();
    }

    public boolean isControlBatch() {
        return batch.isControlBatch();
    }

    public boolean isTransactional() {
        return batch.isTransactional();
    }

    public boolean hasProducerId() {
        return batch.hasProducerId();
    }

    public long producerId() {
        return batch.producerId();
    }

    public short producerEpoch() {
        return batch.producerEpoch();
    }

    public int baseSequence() {
        return batch.baseSequence();
    }

    public int lastSequence() {
        return batch.lastSequence();
    }

    /** The delete horizon key compaction stamped into the batch for its tombstones, if any. */
    public OptionalLong deleteHorizonMs() {
        return batch.deleteHorizonMs();
    }

    /**
     * Rewrites the batch's timestamp type to LogAppendTime and its max timestamp to {@code timestampMs}
     * in place, the CRC with them, as Kafka's broker does for a LogAppendTime topic.
     */
    public void stampLogAppendTime(long timestampMs) {
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, timestampMs);
    }

    /** The records with keys and values, in offset order (a compressed batch is decompressed whole). */
    public Iterable<StoredRecord> records() {
        return () -> {
            Iterator<Record> records = batch.iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return records.hasNext();
                }

                @Override
                public StoredRecord next() {
                    return new StoredRecord(records.next());
                }
            };
        };
    }

    /**
     * The records one at a time without their keys and values (only offsets, timestamps, sizes):
     * the cheap pass for validation and timestamp lookups. Close it.
     */
    public RecordIterator recordsWithoutKeysOrValues() {
        return new RecordIterator(batch.skipKeyValueIterator(BufferSupplier.NO_CACHING));
    }

    /** The records one at a time, decompressing into {@code buffers} as it goes. Close it. */
    public RecordIterator streamRecords(DecompressionBuffers buffers) {
        return new RecordIterator(batch.streamingIterator(buffers.supplier()));
    }

    @Override
    public String toString() {
        return batch.toString();
    }
}
