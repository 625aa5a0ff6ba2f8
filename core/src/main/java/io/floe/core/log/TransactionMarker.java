package io.floe.core.log;

import java.util.Objects;

/**
 * The end of one producer's transaction in one partition (Kafka's control batch with an
 * {@code EndTransactionMarker}): it takes the offset {@code offset}, and readers learn from it that
 * the producer's transactional records before it are committed or aborted. Floe keeps markers as
 * metadata rows, not in objects; the fetch path makes their bytes.
 *
 * @param firstOffset the first offset of the transaction this marker ends in the partition
 * @param timestamp when the transaction ended, epoch milliseconds (the control batch's timestamp)
 */
public record TransactionMarker(
        TopicPartition topicPartition,
        long offset,
        long producerId,
        short producerEpoch,
        boolean commit,
        long firstOffset,
        int coordinatorEpoch,
        long timestamp)
        implements LogEntry {

    /**
     * The bytes of a marker as a control batch: the v2 batch header (61) and one record with a 4-byte
     * key and a 6-byte value (17).
     */
    public static final int SIZE_IN_BYTES = 78;

    public TransactionMarker {
        Objects.requireNonNull(topicPartition, "topicPartition");
        if (firstOffset > offset) {
            throw new IllegalArgumentException("firstOffset " + firstOffset + " > marker offset " + offset);
        }
    }

    @Override
    public long baseOffset() {
        return offset;
    }

    @Override
    public long lastOffset() {
        return offset;
    }

    @Override
    public int sizeInBytes() {
        return SIZE_IN_BYTES;
    }
}
