package io.floe.maintenance.keys;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Key compaction's meters, under {@code floe.key.compaction.*}. */
final class KeyCompactionMeters {

    final Counter bytesRead;
    final Counter bytesWritten;
    final Counter recordsRemoved;
    final Counter batchesRemoved;
    final Counter passes;
    final Counter rewritten;
    final Counter rejected;
    final Counter unknown;
    final Counter released;
    final Counter failures;
    final Counter markersRemoved;
    /**
     * Age, in milliseconds, of the oldest record below the active segment not cleaned yet, over every
     * compacted partition.
     */
    final AtomicLong lagMs = new AtomicLong();

    KeyCompactionMeters(MeterRegistry meters) {
        bytesRead = Counter.builder("floe.key.compaction.bytes.read")
                .baseUnit("bytes")
                .description("Bytes of batches key compaction read (both passes)")
                .register(meters);
        bytesWritten = Counter.builder("floe.key.compaction.bytes.written")
                .baseUnit("bytes")
                .description("Bytes of objects key compaction wrote")
                .register(meters);
        recordsRemoved = Counter.builder("floe.key.compaction.records.removed")
                .description("Records key compaction removed: superseded by a newer record of their key,"
                        + " tombstones past delete.retention.ms, records without a key")
                .register(meters);
        batchesRemoved = Counter.builder("floe.key.compaction.batches.removed")
                .description("Batches key compaction removed because no record was left in them")
                .register(meters);
        passes = Counter.builder("floe.key.compaction.passes")
                .description("Partitions key compaction cleaned up to their cleanable end")
                .register(meters);
        rewritten = swaps(meters, "rewritten");
        rejected = swaps(meters, "rejected");
        unknown = swaps(meters, "unknown");
        released = Counter.builder("floe.key.compaction.inputs.released")
                .description("Objects whose last batch key compaction moved or removed")
                .register(meters);
        failures = Counter.builder("floe.key.compaction.failures")
                .description("Partitions whose scan or pass failed in a round (logged; the round goes on)")
                .register(meters);
        markersRemoved = Counter.builder("floe.key.compaction.markers.removed")
                .description("Transaction markers key compaction removed: no record of their transaction was"
                        + " left and delete.retention.ms had passed")
                .register(meters);
        TimeGauge.builder("floe.key.compaction.lag", lagMs, TimeUnit.MILLISECONDS, AtomicLong::doubleValue)
                .description("Age of the oldest record below the emulated active segment that key compaction"
                        + " has not cleaned yet (its batch's max timestamp), over every compacted partition;"
                        + " 0 when all is clean")
                .register(meters);
    }

    private static Counter swaps(MeterRegistry meters, String outcome) {
        return Counter.builder("floe.key.compaction.swaps")
                .tag("outcome", outcome)
                .description("Key compaction swaps by outcome")
                .register(meters);
    }
}
