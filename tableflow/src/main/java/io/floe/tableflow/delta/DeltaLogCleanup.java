package io.floe.tableflow.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the expired files of a table's Delta log, as Delta's protocol describes its metadata cleanup
 * ("Metadata Cleanup"): the commits, checksums and checkpoints of versions older than
 * {@code delta.logRetentionDuration} (30 days by default) that lie before a checkpoint, so that every
 * version within the retention, the latest checkpoint and every version after it stay readable.
 * Delta Kernel has this cleanup but does not run it for Floe: its post-commit checkpoint loads the
 * snapshot "as of" the version it checkpoints, and cleans only after a checkpoint of a snapshot loaded
 * as the latest; it also leaves the {@code .crc} files. A log file's age is its object's modification
 * time, as Delta's own cleanup takes it.
 */
public final class DeltaLogCleanup {

    private static final Logger LOGGER = LoggerFactory.getLogger(DeltaLogCleanup.class);

    /** Deletes per run at most; the rest wait for the next run. */
    static final int DELETES_MAX = 10_000;

    private DeltaLogCleanup() {}

    /** What a run did: log files deleted, or why it did nothing (null when it ran). */
    public record Outcome(int removed, String skipped) {
        static final Outcome NO_LOG = new Outcome(0, "the table has no delta log");
    }

    /** Deletes the log files of {@code table} that expired at {@code now}. Throws when the log cannot be read. */
    public static Outcome clean(Table table, Instant now) {
        Optional<DeltaLogLocation> found = DeltaLogLocation.of(table);
        if (found.isEmpty()) {
            return Outcome.NO_LOG;
        }
        DeltaLogLocation log = found.get();
        Engine engine = log.engine();
        Snapshot latest = log.latest(engine);
        DeltaRetention retention = DeltaRetention.of(latest.getTableProperties());
        if (!retention.logCleanupEnabled()) {
            return new Outcome(0, DeltaRetention.LOG_CLEANUP_ENABLED + " is false");
        }
        DeltaLogListing listing = DeltaLogListing.of(log.logPrefix(), log.list());
        List<DeltaLogFile> expired = listing.expired(now.minus(retention.log()), latest.getVersion());
        int removed = 0;
        for (DeltaLogFile file : expired.subList(0, Math.min(expired.size(), DELETES_MAX))) {
            log.store().delete(file.object().key());
            removed++;
        }
        if (removed > 0) {
            LOGGER.info(
                    "delta log files removed table={} files={} first={} last={} retentionMs={} latestVersion={}",
                    table.name(),
                    removed,
                    expired.get(0).object().key(),
                    expired.get(removed - 1).object().key(),
                    retention.log().toMillis(),
                    latest.getVersion());
        }
        return new Outcome(removed, null);
    }
}
