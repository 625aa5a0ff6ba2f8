package io.floe.benchmarks.compaction;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectLifecycle;
import io.floe.core.object.ObjectStore;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.cleanup.ObjectCleanup;
import io.floe.maintenance.compaction.SegmentCompaction;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction as the leased jobs do it, without their intervals: each {@link #compactAndClean()} runs
 * {@link SegmentCompaction} rounds back to back until one finds nothing to do, then {@link ObjectCleanup} rounds at
 * a time past the delete delay, which delete the inputs. It is given the bare object store, so the agent's
 * object-store meters count fetches only. Keeps the totals over all its sessions. Not thread-safe.
 */
final class Compactor {

    private static final Logger LOGGER = LoggerFactory.getLogger(Compactor.class);
    private static final String OWNER = "compaction-benchmark";
    /** Bounds the loops should a round keep finding work (it should not: outputs are not small objects). */
    private static final int ROUNDS_MAX = 1_000;

    private final MaintenanceConfig config;
    private final ObjectLifecycle metadata;
    private final Clock clock;
    private final MeterRegistry meters;
    private final SegmentCompaction compaction;
    private final ObjectCleanup cleanup;
    private int sessions;
    private int rounds;
    private long nanos;
    private long idleBytesRead;
    private int cleanupRounds;
    private long cleanupNanos;

    Compactor(MaintenanceConfig config, MetadataStore metadata, ObjectStore objects, Clock clock,
            MeterRegistry meters) {
        this.config = config;
        this.metadata = metadata;
        this.clock = clock;
        this.meters = meters;
        this.compaction = new SegmentCompaction(config, metadata, metadata, objects, OWNER, clock, meters);
        this.cleanup = new ObjectCleanup(config, metadata, objects, meters);
    }

    void compactAndClean() {
        sessions++;
        long start = System.nanoTime();
        for (int round = 1; ; round++) {
            long readBefore = count("floe.compaction.bytes.read");
            String outcome = compaction.run(clock.instant());
            if (outcome.isEmpty()) {
                idleBytesRead += count("floe.compaction.bytes.read") - readBefore;
                break;
            }
            rounds++;
            LOGGER.info("compaction session={} round={} {}", sessions, round, outcome);
            if (round >= ROUNDS_MAX) {
                throw new IllegalStateException("compaction still found work after " + round + " rounds");
            }
        }
        nanos += System.nanoTime() - start;

        Instant pastDelay = clock.instant().plus(config.objectDeleteDelay()).plusSeconds(1);
        long cleanupStart = System.nanoTime();
        int round = 0;
        do {
            String done = cleanup.run(pastDelay);
            round++;
            LOGGER.info("cleanup session={} round={} at={} {}", sessions, round, pastDelay, done);
        } while (metadata.storageStats().pendingDeletions() > 0 && round < ROUNDS_MAX);
        cleanupRounds += round;
        cleanupNanos += System.nanoTime() - cleanupStart;
    }

    CompactionRun totals() {
        return new CompactionRun(sessions, rounds, nanos, count("floe.compaction.bytes.read"), idleBytesRead,
                count("floe.compaction.bytes.written"), swaps("rewritten"), swaps("rejected") + swaps("unknown"),
                count("floe.compaction.inputs.released"), cleanupRounds, cleanupNanos,
                count("floe.cleanup.objects.deleted"));
    }

    private long count(String name) {
        return (long) meters.get(name).counter().count();
    }

    private long swaps(String outcome) {
        return (long) meters.get("floe.compaction.swaps").tag("outcome", outcome).counter().count();
    }
}
