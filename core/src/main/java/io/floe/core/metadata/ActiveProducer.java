package io.floe.core.metadata;

/**
 * An idempotent producer's state on one partition, as the store keeps it for sequence checks: its
 * current epoch, the sequence of its last appended record, the max timestamp of its last batch
 * ({@code -1} when that batch is no longer indexed) and the first offset of its open transaction on
 * the partition ({@code -1} when none is open).
 */
public record ActiveProducer(
        long producerId, short producerEpoch, int lastSequence, long lastTimestamp, long currentTxnStartOffset) {

    public static final long NO_TIMESTAMP = -1L;
    public static final long NO_TRANSACTION = -1L;

    public ActiveProducer(long producerId, short producerEpoch, int lastSequence, long lastTimestamp) {
        this(producerId, producerEpoch, lastSequence, lastTimestamp, NO_TRANSACTION);
    }
}
