package io.floe.tableflow.maintenance;

import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.delta.DeltaFileReferences;
import io.floe.tableflow.delta.DeltaLogCleanup;
import io.floe.tableflow.delta.DeltaRetirement;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maintenance of one topic's tables (its rows and its dead letters), called by the topic's job after
 * each round, on the job's thread and under its lease (the tables it is given are fenced by its epoch).
 * It keeps a schedule per table, and deciding whether anything is due reads only the loaded metadata:
 *
 * <ul>
 *   <li><b>Compaction</b> looks at the current snapshot's summary: the table's <em>excess</em> files are
 *       its data files beyond the number its bytes need at the target size ({@code total-data-files}
 *       minus {@code total-files-size} divided by the target, rounded up). What a compaction cannot
 *       remove (one small file in each of many partitions) becomes the baseline, and a compaction runs
 *       when the excess has grown by {@code floe.tableflow.compaction.trigger.files} since, when the
 *       last one stopped at its byte budget, or at the maintenance interval when it has grown at all.
 *       One that lost its commit to a round tries again after the next round; one that failed waits for
 *       the interval.</li>
 *   <li>Rows hidden by <b>deletes</b> (an upsert table's replaced rows) start a compaction once they are a
 *       tenth of the table's rows, and at each maintenance interval while there are any, unless they are
 *       the ones the last compaction left (in files where too few rows are deleted to rewrite them).</li>
 *   <li><b>Snapshot expiry</b> and <b>orphan file removal</b> run every
 *       {@code floe.tableflow.maintenance.interval.ms}, the first time after the job's first round. Expiry
 *       keeps the snapshots back to the one a retention hold of the topic still replays from. Both
 *       keep the files a Delta version within the Delta log's {@code delta.deletedFileRetentionDuration}
 *       may read, and a table published as Delta has its log's expired files deleted then too
 *       ({@link DeltaLogCleanup}); a table whose Delta publishing was turned off has its log retired
 *       ({@link DeltaRetirement}).</li>
 * </ul>
 *
 * A compaction reads at most {@code rewriteBytesMax} of small files per run (always at least one
 * group of them). Not thread-safe: the job's thread is its only caller.
 */
public final class TableMaintenance {

    private static final Logger LOGGER = LoggerFactory.getLogger(TableMaintenance.class);

    private final MeterRegistry meters;
    private final String topic;
    private final long rewriteBytesMax;
    /** The topic's lowest retention hold per partition: where a reader of the log (a change topic) stands. */
    private final Supplier<Map<Integer, Long>> holds;
    /** Per table name; a topic has two tables. */
    private final Map<String, Schedule> schedules = new HashMap<>();

    /**
     * What one call did: the compaction's outcome; snapshots expired and the files deleted with them; the
     * files they let go that were kept for the Delta log; orphans deleted; Delta log files deleted.
     */
    public record Result(
            CompactionOutcome compaction,
            int snapshotsExpired,
            int filesRemoved,
            int filesKeptForDelta,
            int orphansRemoved,
            int deltaLogFilesRemoved) {
        static Result compactionOnly(CompactionOutcome compaction) {
            return new Result(compaction, 0, 0, 0, 0, 0);
        }
    }

    public TableMaintenance(MeterRegistry meters, String topic, long rewriteBytesMax) {
        this(meters, topic, rewriteBytesMax, Map::of);
    }

    /**
     * With snapshot expiry keeping the snapshots from which the readers that hold the topic's log back
     * ({@code holds}, read when an expiry is due) replay it: a change topic behind its table replays its
     * next range from the snapshot at its position.
     */
    public TableMaintenance(
            MeterRegistry meters, String topic, long rewriteBytesMax, Supplier<Map<Integer, Long>> holds) {
        this.holds = Objects.requireNonNull(holds, "holds");
        this.meters = Objects.requireNonNull(meters, "meters");
        this.topic = Objects.requireNonNull(topic, "topic");
        if (rewriteBytesMax < 1) {
            throw new IllegalArgumentException("maintenance rewrite budget " + rewriteBytesMax + " must be positive");
        }
        this.rewriteBytesMax = rewriteBytesMax;
    }

    /**
     * Runs what is due on {@code table} (as loaded, refreshed after each of its own commits). Never
     * throws for a failed action: it is logged and counted, and the other actions still run.
     */
    public Result run(Table table, TableSettings settings, Instant now) {
        if (!settings.maintenanceEnabled()) {
            return Result.compactionOnly(new CompactionOutcome.NotDue());
        }
        Schedule schedule = schedules.computeIfAbsent(
                table.name(), name -> new Schedule(new MaintenanceMetrics(meters, topic, name)));
        boolean cleanupDue = schedule.cleanupDue(settings, now);
        CompactionOutcome compaction = new CompactionOutcome.NotDue();
        if (schedule.compactionDue(table, settings, cleanupDue, now)) {
            compaction = compact(table, settings, now, schedule);
        }
        if (!cleanupDue) {
            return Result.compactionOnly(compaction);
        }
        schedule.lastCleanup = now;
        if (!Boolean.parseBoolean(table.properties().getOrDefault(TableProperties.GC_ENABLED, "true"))) {
            LOGGER.debug(
                    "no snapshot expiry or orphan removal table={}: {} is false",
                    table.name(),
                    TableProperties.GC_ENABLED);
            return Result.compactionOnly(compaction);
        }
        SnapshotExpiry.Outcome expiry = expire(table, settings, now, schedule);
        int orphans = removeOrphans(table, settings, now, schedule);
        int deltaLogFiles = settings.deltaEnabled()
                ? cleanDeltaLog(table, now, schedule.metrics)
                : retireDeltaLog(table, settings, now, schedule.metrics);
        return new Result(
                compaction,
                expiry.snapshotsExpired(),
                expiry.filesRemoved(),
                expiry.filesKeptForDelta(),
                orphans,
                deltaLogFiles);
    }

    private CompactionOutcome compact(Table table, TableSettings settings, Instant now, Schedule schedule) {
        CompactionOutcome outcome;
        try {
            outcome = Compaction.run(table, settings.targetFileBytes(), rewriteBytesMax, now);
            table.refresh();
        } catch (RuntimeException e) {
            outcome = new CompactionOutcome.Failed(e.toString());
            LOGGER.warn("compaction failed table={}: {}", table.name(), e.toString(), e);
        }
        if (outcome instanceof CompactionOutcome.Compacted done) {
            schedule.metrics.compacted(done.filesRewritten(), done.filesAdded());
            LOGGER.info(
                    "table compacted table={} filesRewritten={} filesAdded={} bytesRewritten={} more={}",
                    table.name(),
                    done.filesRewritten(),
                    done.filesAdded(),
                    done.bytesRewritten(),
                    done.more());
        } else if (outcome instanceof CompactionOutcome.Conflict) {
            schedule.metrics.conflict();
        } else if (outcome instanceof CompactionOutcome.Failed || outcome instanceof CompactionOutcome.Unknown) {
            schedule.metrics.failed();
        }
        schedule.afterCompaction(outcome, table, settings, now);
        return outcome;
    }

    private SnapshotExpiry.Outcome expire(Table table, TableSettings settings, Instant now, Schedule schedule) {
        MaintenanceMetrics metrics = schedule.metrics;
        try {
            SnapshotExpiry.Outcome outcome = SnapshotExpiry.expire(
                    table, settings.snapshotRetention(), now, schedule.deltaTombstones, holds.get());
            if (outcome.snapshotsExpired() > 0) {
                table.refresh();
                metrics.expired(outcome.snapshotsExpired(), outcome.filesRemoved(), outcome.filesKeptForDelta());
                LOGGER.info(
                        "snapshots expired table={} snapshots={} filesRemoved={} filesKeptForDelta={} retentionMs={}",
                        table.name(),
                        outcome.snapshotsExpired(),
                        outcome.filesRemoved(),
                        outcome.filesKeptForDelta(),
                        settings.snapshotRetention().toMillis());
            }
            if (outcome.deltaUnreadable()) {
                metrics.failed();
            }
            return outcome;
        } catch (CommitFailedException e) {
            metrics.conflict();
            LOGGER.info(
                    "snapshot expiry lost to another commit table={}: {}; next interval tries again",
                    table.name(),
                    e.getMessage());
        } catch (RuntimeException e) {
            metrics.failed();
            LOGGER.warn("snapshot expiry failed table={}: {}", table.name(), e.toString(), e);
        }
        table.refresh();
        return SnapshotExpiry.Outcome.NONE;
    }

    private static int removeOrphans(Table table, TableSettings settings, Instant now, Schedule schedule) {
        MaintenanceMetrics metrics = schedule.metrics;
        try {
            OrphanFiles.Outcome outcome =
                    OrphanFiles.remove(table, settings.orphanAge(), now, schedule.deltaTombstones);
            if (outcome.skipped() != null) {
                LOGGER.info("orphan removal skipped table={}: {}", table.name(), outcome.skipped());
            } else if (outcome.removed() > 0) {
                metrics.orphansRemoved(outcome.removed());
                LOGGER.info(
                        "orphan files removed table={} files={} minAgeMs={}",
                        table.name(),
                        outcome.removed(),
                        settings.orphanAge().toMillis());
            }
            return outcome.removed();
        } catch (RuntimeException e) {
            metrics.failed();
            LOGGER.warn("orphan removal failed table={}: {}", table.name(), e.toString(), e);
            return 0;
        }
    }

    /** Deletes the expired files of the table's Delta log; its failures are counted, never thrown. */
    private static int cleanDeltaLog(Table table, Instant now, MaintenanceMetrics metrics) {
        try {
            DeltaLogCleanup.Outcome outcome = DeltaLogCleanup.clean(table, now);
            metrics.deltaLogFilesRemoved(outcome.removed());
            return outcome.removed();
        } catch (RuntimeException e) {
            metrics.failed();
            LOGGER.warn(
                    "delta log cleanup failed table={}: {}; the next maintenance interval tries again",
                    table.name(),
                    e.toString(),
                    e);
            return 0;
        }
    }

    /**
     * Retires the Delta log of a table whose Delta publishing was turned off ({@link DeltaRetirement}); its
     * failures are counted, never thrown.
     */
    private static int retireDeltaLog(Table table, TableSettings settings, Instant now, MaintenanceMetrics metrics) {
        try {
            DeltaRetirement.Outcome outcome = DeltaRetirement.retire(table, settings.snapshotRetention(), now);
            metrics.deltaLogFilesRemoved(outcome.removed());
            return outcome.removed();
        } catch (RuntimeException e) {
            metrics.failed();
            LOGGER.warn(
                    "retiring the delta log failed table={}: {}; the next maintenance interval tries again",
                    table.name(),
                    e.toString(),
                    e);
            return 0;
        }
    }

    /**
     * Whether a call at {@code now} may find work on tables that did not change since the last call: an
     * interval came, a compaction stopped at its budget, or no table was looked at yet (a table that
     * appears later, the dead-letter table, appears in a round that changed it). When false and no table
     * changed, the caller can skip loading them.
     */
    public boolean dueWithoutChanges(TableSettings settings, Instant now) {
        return schedules.isEmpty()
                || schedules.values().stream()
                        .anyMatch(schedule -> schedule.cleanupDue(settings, now) || schedule.more);
    }

    /**
     * The table's excess data files: how many more it has than its bytes need at the target size; empty
     * when the snapshot's summary lacks the totals (another engine's snapshot may).
     */
    static OptionalLong excessFiles(Snapshot snapshot, long targetFileBytes) {
        if (snapshot == null) {
            return OptionalLong.of(0);
        }
        String files = snapshot.summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP);
        String bytes = snapshot.summary().get(SnapshotSummary.TOTAL_FILE_SIZE_PROP);
        if (files == null || bytes == null) {
            return OptionalLong.empty();
        }
        try {
            long size = Long.parseLong(bytes);
            long needed = size / targetFileBytes + (size % targetFileBytes == 0 ? 0 : 1);
            return OptionalLong.of(Math.max(0, Long.parseLong(files) - needed));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** The rows the snapshot's deletes hide (an upsert table's replaced rows); 0 when the summary lacks them. */
    static long deletedRows(Snapshot snapshot) {
        return summaryLong(snapshot, SnapshotSummary.TOTAL_POS_DELETES_PROP);
    }

    private static long totalRecords(Snapshot snapshot) {
        return summaryLong(snapshot, SnapshotSummary.TOTAL_RECORDS_PROP);
    }

    private static long summaryLong(Snapshot snapshot, String property) {
        if (snapshot == null) {
            return 0;
        }
        try {
            return Long.parseLong(snapshot.summary().getOrDefault(property, "0"));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** When a table's actions are due next. */
    private static final class Schedule {
        final MaintenanceMetrics metrics;
        /** The tombstones of the table's Delta checkpoints, read once each. */
        final DeltaFileReferences.TombstoneCache deltaTombstones = new DeltaFileReferences.TombstoneCache();

        /** When expiry and orphan removal last ran; the interval is the current setting's, so a lowered one applies at once. */
        Instant lastCleanup = Instant.MIN;

        Instant compactionNotBefore = Instant.MIN;
        /** The excess files the last compaction left: it could not remove them. */
        long baseline;
        /** The last compaction stopped at its byte budget. */
        boolean more;
        /**
         * The deleted rows the last compaction left (in files with too few of them to rewrite): a
         * compaction for deleted rows waits until there are others.
         */
        long deletedBaseline = -1;

        Schedule(MaintenanceMetrics metrics) {
            this.metrics = metrics;
        }

        boolean cleanupDue(TableSettings settings, Instant now) {
            return lastCleanup.equals(Instant.MIN) || !now.isBefore(lastCleanup.plus(settings.maintenanceInterval()));
        }

        boolean compactionDue(Table table, TableSettings settings, boolean cleanupDue, Instant now) {
            if (now.isBefore(compactionNotBefore)) {
                return false;
            }
            long deleted = deletedRows(table.currentSnapshot());
            if (deleted > 0
                    && deleted != deletedBaseline
                    && (cleanupDue || deleted * Compaction.PURGE_FRACTION >= totalRecords(table.currentSnapshot()))) {
                return true;
            }
            OptionalLong excess = excessFiles(table.currentSnapshot(), settings.targetFileBytes());
            if (excess.isEmpty()) {
                return cleanupDue;
            }
            // Another writer's compaction, or a table created again, may have left fewer.
            baseline = Math.min(baseline, excess.getAsLong());
            long grown = excess.getAsLong() - baseline;
            return grown > 0 && (more || grown >= settings.compactionTriggerFiles() || cleanupDue);
        }

        void afterCompaction(CompactionOutcome outcome, Table table, TableSettings settings, Instant now) {
            if (outcome instanceof CompactionOutcome.Compacted done) {
                more = done.more();
                if (!more) {
                    baseline = excessFiles(table.currentSnapshot(), settings.targetFileBytes())
                            .orElse(0);
                    deletedBaseline = deletedRows(table.currentSnapshot());
                }
            } else if (outcome instanceof CompactionOutcome.NothingToDo) {
                more = false;
                deletedBaseline = deletedRows(table.currentSnapshot());
                baseline = excessFiles(table.currentSnapshot(), settings.targetFileBytes())
                        .orElse(0);
            } else if (outcome instanceof CompactionOutcome.Failed) {
                more = false;
                compactionNotBefore = now.plus(settings.maintenanceInterval());
            }
            // A conflict or an unknown outcome: the next round's check plans again from the new metadata.
        }
    }
}
