package io.floe.core.metadata;

/**
 * An idempotent producer's state on one partition, as the store keeps it for sequence checks: its
 * current epoch, the sequence of its last appended record, and the max timestamp of its last batch
 * ({@code -1} when that batch is no longer indexed).
 */
public record ActiveProducer(long producerId, short producerEpoch, int lastSequence, long lastTimestamp) {

    public static final long NO_TIMESTAMP = -1L;
}
