package io.floe.maintenance;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the background jobs.
 *
 * @param compactionInterval pause between compaction runs
 * @param compactionTargetBytes size a compacted per-partition object grows to (key compaction's outputs too)
 * @param compactionSmallObjectBytes objects smaller than this are compaction inputs
 * @param compactionMinAge objects younger than this are left alone (tailing consumers read them from the
 *     cache); key compaction does not clean batches in them yet either
 * @param compactionRunBytesMax input bytes one run reads at most (bounds its memory); key compaction
 *     cleans partitions until a run has read this much, at least one partition
 * @param keyCompactionInterval pause between key compaction runs
 * @param keyCompactionBufferBytes memory of key compaction's key-to-offset map (Kafka's
 *     {@code log.cleaner.dedupe.buffer.size}): one pass over a partition reads as many dirty records as
 *     it has entries (24 bytes each, filled to 90%)
 * @param retentionInterval pause between retention runs
 * @param cleanupInterval pause between cleanup runs (orphan sweep and deletions)
 * @param objectDeleteDelay how long an object that lost its last reference stays readable, for fetches
 *     planned before (Kafka's {@code file.delete.delay.ms})
 * @param orphanGrace how old an uncommitted registration must be before the sweep expires it
 * @param leaseTtl how long a job's lease lasts without renewal
 * @param producerIdExpiration how long a producer's idempotence state on a partition outlives its last
 *     write there (Kafka's {@code producer.id.expiration.ms}); expiry runs with retention
 * @param transactionalIdExpiration how long a transactional id with no open transaction is kept after
 *     its last change (Kafka's {@code transactional.id.expiration.ms}); expiry runs with producer expiry
 */
public record MaintenanceConfig(
        Duration compactionInterval,
        long compactionTargetBytes,
        long compactionSmallObjectBytes,
        Duration compactionMinAge,
        long compactionRunBytesMax,
        Duration keyCompactionInterval,
        int keyCompactionBufferBytes,
        Duration retentionInterval,
        Duration cleanupInterval,
        Duration objectDeleteDelay,
        Duration orphanGrace,
        Duration leaseTtl,
        Duration producerIdExpiration,
        Duration transactionalIdExpiration) {

    /** The smallest key-to-offset map: about 4000 keys. */
    public static final int KEY_COMPACTION_BUFFER_BYTES_MIN = 100 * 1024;

    /** Kafka's default {@code producer.id.expiration.ms}: one day. */
    public static final Duration PRODUCER_ID_EXPIRATION = Duration.ofDays(1);

    /** Kafka's default {@code transactional.id.expiration.ms}: seven days. */
    public static final Duration TRANSACTIONAL_ID_EXPIRATION = Duration.ofDays(7);

    public static final MaintenanceConfig DEFAULTS = new MaintenanceConfig(
            Duration.ofSeconds(30),
            64L << 20,
            16L << 20,
            Duration.ofSeconds(30),
            256L << 20,
            Duration.ofSeconds(30),
            16 << 20,
            Duration.ofMinutes(1),
            Duration.ofSeconds(30),
            Duration.ofMinutes(1),
            Duration.ofMinutes(10),
            Duration.ofMinutes(2),
            PRODUCER_ID_EXPIRATION,
            TRANSACTIONAL_ID_EXPIRATION);

    public MaintenanceConfig {
        positive("compaction interval", compactionInterval);
        positive("key compaction interval", keyCompactionInterval);
        positive("retention interval", retentionInterval);
        positive("cleanup interval", cleanupInterval);
        positive("lease ttl", leaseTtl);
        positive("producer id expiration", producerIdExpiration);
        positive("transactional id expiration", transactionalIdExpiration);
        notNegative("compaction min age", compactionMinAge);
        notNegative("object delete delay", objectDeleteDelay);
        notNegative("orphan grace", orphanGrace);
        if (compactionTargetBytes < 1 || compactionSmallObjectBytes < 1 || compactionRunBytesMax < 1) {
            throw new IllegalArgumentException("compaction sizes must be positive: target " + compactionTargetBytes
                    + ", small object " + compactionSmallObjectBytes + ", run max " + compactionRunBytesMax);
        }
        if (compactionSmallObjectBytes > compactionTargetBytes) {
            throw new IllegalArgumentException("compaction small-object size " + compactionSmallObjectBytes
                    + " exceeds the target size " + compactionTargetBytes);
        }
        if (keyCompactionBufferBytes < KEY_COMPACTION_BUFFER_BYTES_MIN) {
            throw new IllegalArgumentException("key compaction buffer of " + keyCompactionBufferBytes
                    + " bytes is below the minimum of " + KEY_COMPACTION_BUFFER_BYTES_MIN);
        }
    }

    public MaintenanceConfig withCompaction(
            Duration interval, long targetBytes, long smallObjectBytes, Duration minAge) {
        return new MaintenanceConfig(
                interval,
                targetBytes,
                smallObjectBytes,
                minAge,
                compactionRunBytesMax,
                keyCompactionInterval,
                keyCompactionBufferBytes,
                retentionInterval,
                cleanupInterval,
                objectDeleteDelay,
                orphanGrace,
                leaseTtl,
                producerIdExpiration,
                transactionalIdExpiration);
    }

    public MaintenanceConfig withKeyCompaction(Duration interval, int bufferBytes) {
        return new MaintenanceConfig(
                compactionInterval,
                compactionTargetBytes,
                compactionSmallObjectBytes,
                compactionMinAge,
                compactionRunBytesMax,
                interval,
                bufferBytes,
                retentionInterval,
                cleanupInterval,
                objectDeleteDelay,
                orphanGrace,
                leaseTtl,
                producerIdExpiration,
                transactionalIdExpiration);
    }

    public MaintenanceConfig withCleanup(Duration interval, Duration deleteDelay, Duration grace) {
        return new MaintenanceConfig(
                compactionInterval,
                compactionTargetBytes,
                compactionSmallObjectBytes,
                compactionMinAge,
                compactionRunBytesMax,
                keyCompactionInterval,
                keyCompactionBufferBytes,
                retentionInterval,
                interval,
                deleteDelay,
                grace,
                leaseTtl,
                producerIdExpiration,
                transactionalIdExpiration);
    }

    public MaintenanceConfig withRetentionInterval(Duration interval) {
        return new MaintenanceConfig(
                compactionInterval,
                compactionTargetBytes,
                compactionSmallObjectBytes,
                compactionMinAge,
                compactionRunBytesMax,
                keyCompactionInterval,
                keyCompactionBufferBytes,
                interval,
                cleanupInterval,
                objectDeleteDelay,
                orphanGrace,
                leaseTtl,
                producerIdExpiration,
                transactionalIdExpiration);
    }

    public MaintenanceConfig withProducerIdExpiration(Duration expiration) {
        return new MaintenanceConfig(
                compactionInterval,
                compactionTargetBytes,
                compactionSmallObjectBytes,
                compactionMinAge,
                compactionRunBytesMax,
                keyCompactionInterval,
                keyCompactionBufferBytes,
                retentionInterval,
                cleanupInterval,
                objectDeleteDelay,
                orphanGrace,
                leaseTtl,
                expiration,
                transactionalIdExpiration);
    }

    public MaintenanceConfig withTransactionalIdExpiration(Duration expiration) {
        return new MaintenanceConfig(
                compactionInterval,
                compactionTargetBytes,
                compactionSmallObjectBytes,
                compactionMinAge,
                compactionRunBytesMax,
                keyCompactionInterval,
                keyCompactionBufferBytes,
                retentionInterval,
                cleanupInterval,
                objectDeleteDelay,
                orphanGrace,
                leaseTtl,
                producerIdExpiration,
                expiration);
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    private static void notNegative(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, got " + value);
        }
    }
}
