package io.floe.tableflow.maintenance;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** One table's maintenance meters, tagged with its topic and table. */
final class MaintenanceMetrics {

    private final Counter filesRewritten;
    private final Counter filesAdded;
    private final Counter filesRemoved;
    private final Counter snapshotsExpired;
    private final Counter orphansRemoved;
    private final Counter filesKeptForDelta;
    private final Counter deltaLogFilesRemoved;
    private final Counter conflicts;
    private final Counter failures;

    MaintenanceMetrics(MeterRegistry meters, String topic, String table) {
        this.filesRewritten =
                counter(meters, "files.rewritten", topic, table, "Small data files replaced by compaction");
        this.filesAdded = counter(meters, "files.added", topic, table, "Data files compaction wrote");
        this.filesRemoved = counter(
                meters,
                "files.removed",
                topic,
                table,
                "Data, manifest and manifest list files deleted with expired snapshots");
        this.snapshotsExpired = counter(meters, "snapshots.expired", topic, table, "Snapshots expired");
        this.orphansRemoved = counter(
                meters, "orphans.removed", topic, table, "Files no snapshot referenced, deleted by orphan removal");
        this.filesKeptForDelta = counter(
                meters,
                "files.kept.for.delta",
                topic,
                table,
                "Files expired snapshots let go that a Delta version within delta.deletedFileRetentionDuration"
                        + " may read; orphan removal deletes them later");
        this.deltaLogFilesRemoved = counter(
                meters,
                "delta.log.files.removed",
                topic,
                table,
                "Delta log commits, checksums and checkpoints older than delta.logRetentionDuration, deleted");
        this.conflicts = counter(
                meters, "conflicts", topic, table, "Maintenance commits rejected because the table changed meanwhile");
        this.failures = counter(meters, "failures", topic, table, "Maintenance actions that failed");
    }

    private static Counter counter(MeterRegistry meters, String name, String topic, String table, String description) {
        return Counter.builder("floe.tableflow.maintenance." + name)
                .tag("topic", topic)
                .tag("table", table)
                .description(description)
                .register(meters);
    }

    void compacted(int rewritten, int added) {
        filesRewritten.increment(rewritten);
        filesAdded.increment(added);
    }

    void expired(int snapshots, int files, int keptForDelta) {
        snapshotsExpired.increment(snapshots);
        filesRemoved.increment(files);
        filesKeptForDelta.increment(keptForDelta);
    }

    void deltaLogFilesRemoved(int count) {
        deltaLogFilesRemoved.increment(count);
    }

    void orphansRemoved(int count) {
        orphansRemoved.increment(count);
    }

    void conflict() {
        conflicts.increment();
    }

    void failed() {
        failures.increment();
    }
}
