package io.floe.maintenance;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the background jobs.
 *
 * @param compactionInterval pause between compaction runs
 * @param compactionTargetBytes size a compacted per-partition object grows to
 * @param compactionSmallObjectBytes objects smaller than this are compaction inputs
 * @param compactionMinAge objects younger than this are left alone (tailing consumers read them from the cache)
 * @param compactionRunBytesMax input bytes one run reads at most (bounds its memory)
 * @param retentionInterval pause between retention runs
 * @param cleanupInterval pause between cleanup runs (orphan sweep and deletions)
 * @param objectDeleteDelay how long an object that lost its last reference stays readable, for fetches
 *     planned before (Kafka's {@code file.delete.delay.ms})
 * @param orphanGrace how old an uncommitted registration must be before the sweep expires it
 * @param leaseTtl how long a job's lease lasts without renewal
 */
public record MaintenanceConfig(
        Duration compactionInterval,
        long compactionTargetBytes,
        long compactionSmallObjectBytes,
        Duration compactionMinAge,
        long compactionRunBytesMax,
        Duration retentionInterval,
        Duration cleanupInterval,
        Duration objectDeleteDelay,
        Duration orphanGrace,
        Duration leaseTtl) {

    public static final MaintenanceConfig DEFAULTS = new MaintenanceConfig(Duration.ofSeconds(30), 64L << 20,
            16L << 20, Duration.ofSeconds(30), 256L << 20, Duration.ofMinutes(1), Duration.ofSeconds(30),
            Duration.ofMinutes(1), Duration.ofMinutes(10), Duration.ofMinutes(2));

    public MaintenanceConfig {
        positive("compaction interval", compactionInterval);
        positive("retention interval", retentionInterval);
        positive("cleanup interval", cleanupInterval);
        positive("lease ttl", leaseTtl);
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
    }

    public MaintenanceConfig withCompaction(Duration interval, long targetBytes, long smallObjectBytes, Duration minAge) {
        return new MaintenanceConfig(interval, targetBytes, smallObjectBytes, minAge, compactionRunBytesMax,
                retentionInterval, cleanupInterval, objectDeleteDelay, orphanGrace, leaseTtl);
    }

    public MaintenanceConfig withCleanup(Duration interval, Duration deleteDelay, Duration grace) {
        return new MaintenanceConfig(compactionInterval, compactionTargetBytes, compactionSmallObjectBytes,
                compactionMinAge, compactionRunBytesMax, retentionInterval, interval, deleteDelay, grace, leaseTtl);
    }

    public MaintenanceConfig withRetentionInterval(Duration interval) {
        return new MaintenanceConfig(compactionInterval, compactionTargetBytes, compactionSmallObjectBytes,
                compactionMinAge, compactionRunBytesMax, interval, cleanupInterval, objectDeleteDelay, orphanGrace,
                leaseTtl);
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
