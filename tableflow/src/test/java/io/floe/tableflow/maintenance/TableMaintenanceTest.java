package io.floe.tableflow.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.delta.DeltaFileReferences;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.PinnedTable;
import io.floe.tableflow.table.Watermark;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction, snapshot expiry and orphan removal on a real catalog and object store. */
class TableMaintenanceTest {

    @TempDir
    Path dir;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TableMaintenance maintenance = new TableMaintenance(meters, "events", 256L << 20);
    private TableFixture fixture;

    @AfterEach
    void close() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void compactionBoundsTheFilesOfEachPartitionAndKeepsTheRowsAndTheWatermark() {
        fixture = new TableFixture(dir, true);
        for (int round = 0; round < 40; round++) {
            fixture.round(3, 40, 200);
        }
        Map<String, List<DataFile>> before = fixture.dataFilesByPartition();
        assertThat(before).hasSize(3);
        assertThat(before.values()).allSatisfy(files -> assertThat(files).hasSize(40));
        long maxPartitionBytes = before.values().stream()
                .mapToLong(TableMaintenanceTest::bytes)
                .max()
                .orElseThrow();
        long target = maxPartitionBytes / 3;
        List<Record> rows = fixture.rows();
        String watermark = fixture.table().currentSnapshot().summary().get(Watermark.SUMMARY_PROPERTY);

        TableMaintenance.Result result = maintenance.run(
                fixture.table(),
                settings(Map.of(TableflowConfigs.TARGET_FILE_BYTES, Long.toString(target))),
                Instant.now());

        assertThat(result.compaction()).isInstanceOf(CompactionOutcome.Compacted.class);
        CompactionOutcome.Compacted done = (CompactionOutcome.Compacted) result.compaction();
        // Next-fit packing may leave a partition's last file alone in its group: it stays as it is.
        assertThat(done.filesRewritten()).isBetween(120 - 3, 120);
        assertThat(done.more()).isFalse();
        Map<String, List<DataFile>> after = fixture.dataFilesByPartition();
        assertThat(after.keySet()).isEqualTo(before.keySet());
        after.forEach((partition, files) -> {
            long needed = ceilDiv(bytes(before.get(partition)), target);
            assertThat(files).as("files of partition %s", partition).hasSizeLessThanOrEqualTo((int) needed + 1);
            assertThat(files)
                    .filteredOn(file -> !file.location().endsWith("-compacted.parquet"))
                    .as("files of partition %s left as they were", partition)
                    .hasSizeLessThanOrEqualTo(1);
        });
        assertThat(fixture.rows()).isEqualTo(rows);
        Snapshot current = fixture.table().currentSnapshot();
        assertThat(current.operation()).isEqualTo(DataOperations.REPLACE);
        assertThat(current.summary()).containsEntry(Watermark.SUMMARY_PROPERTY, watermark);
        assertThat(meters.counter(
                                "floe.tableflow.maintenance.files.rewritten",
                                "topic",
                                "events",
                                "table",
                                fixture.table().name())
                        .count())
                .isEqualTo(done.filesRewritten());

        TableMaintenance.Result again = maintenance.run(
                fixture.table(),
                settings(Map.of(TableflowConfigs.TARGET_FILE_BYTES, Long.toString(target))),
                Instant.now());
        assertThat(again.compaction()).isInstanceOf(CompactionOutcome.NotDue.class);
        assertThat(locations(fixture.dataFiles()))
                .isEqualTo(
                        locations(after.values().stream().flatMap(List::stream).toList()));
    }

    @Test
    void compactionRunsAtTheTriggerAndKeepsTheFileCountLowOverManyRounds() {
        fixture = new TableFixture(dir, false);
        TableSettings settings = settings(Map.of(
                TableflowConfigs.COMPACTION_TRIGGER_FILES,
                "8",
                TableflowConfigs.TARGET_FILE_BYTES,
                Long.toString(1 << 20)));
        Instant now = Instant.now();
        int compactions = 0;
        for (int round = 1; round <= 60; round++) {
            fixture.round(2, 20, 100);
            TableMaintenance.Result result = maintenance.run(fixture.table(), settings, now);
            int files = fixture.dataFiles().size();
            if (result.compaction() instanceof CompactionOutcome.Compacted) {
                compactions++;
                assertThat(files).isEqualTo(1);
            } else {
                assertThat(result.compaction()).isInstanceOf(CompactionOutcome.NotDue.class);
                assertThat(files).as("files after round %s", round).isLessThanOrEqualTo(8);
            }
        }
        assertThat(compactions).isBetween(6, 8);
        assertThat(fixture.rows()).hasSize(60 * 2 * 20);
        // An unchanged table has nothing new until the interval: the job need not even load it.
        assertThat(maintenance.dueWithoutChanges(settings, now.plusSeconds(60))).isFalse();
        assertThat(maintenance.dueWithoutChanges(settings, now.plus(Duration.ofHours(2))))
                .isTrue();

        // Below the trigger, the maintenance interval still compacts.
        fixture.round(2, 20, 100);
        fixture.round(2, 20, 100);
        assertThat(maintenance
                        .run(fixture.table(), settings, now.plusSeconds(60))
                        .compaction())
                .isInstanceOf(CompactionOutcome.NotDue.class);
        assertThat(maintenance
                        .run(fixture.table(), settings, now.plus(Duration.ofHours(2)))
                        .compaction())
                .isInstanceOf(CompactionOutcome.Compacted.class);
        assertThat(fixture.dataFiles()).hasSize(1);
        assertThat(fixture.rows()).hasSize(62 * 2 * 20);
    }

    @Test
    void aSinglePartitionTopicsRowsComeOutOfCompactionInOffsetOrder() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 12; round++) {
            fixture.round(1, 30, 20); // files 00000-1-…, 00000-10-…, 00000-11-…, 00000-2-…: names are not offset order
        }
        TableSettings settings = settings(Map.of(TableflowConfigs.COMPACTION_TRIGGER_FILES, "1"));
        assertThat(maintenance.run(fixture.table(), settings, Instant.now()).compaction())
                .isInstanceOf(CompactionOutcome.Compacted.class);
        assertThat(fixture.dataFiles()).hasSize(1);

        List<Long> offsets = new ArrayList<>();
        try (CloseableIterable<Record> rows =
                IcebergGenerics.read(fixture.table()).build()) {
            rows.forEach(row -> offsets.add((Long) row.getField(Rows.OFFSET)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(offsets).hasSize(12 * 30).isSorted();
    }

    /**
     * A change topic behind its table holds the log at its position, and replays its next range from the
     * snapshot there: expiry keeps that snapshot and those after it, however old, and lets the older go.
     */
    @Test
    void expiryKeepsTheSnapshotsFromWhichARetentionHoldReplays() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 5; round++) {
            fixture.round(2, 20, 100); // watermarks 20, 40, ... on both partitions
        }
        Map<Integer, Long> holds = Map.of(0, 60L, 1, 70L); // at the third round's watermark
        Instant later = Instant.now().plus(Duration.ofDays(2));

        SnapshotExpiry.Outcome outcome = SnapshotExpiry.expire(
                fixture.table(), Duration.ofHours(1), later, new DeltaFileReferences.TombstoneCache(), holds);

        assertThat(outcome.snapshotsExpired()).isEqualTo(2);
        Table table = fixture.table();
        table.refresh();
        assertThat(table.snapshots())
                .extracting(snapshot -> Watermark.parse(snapshot.summary().get(Watermark.SUMMARY_PROPERTY))
                        .next(0))
                .containsExactlyInAnyOrder(60L, 80L, 100L);

        // The change topic caught up, or went: only the current snapshot is needed.
        outcome = SnapshotExpiry.expire(
                table, Duration.ofHours(1), later, new DeltaFileReferences.TombstoneCache(), Map.of());
        assertThat(outcome.snapshotsExpired()).isEqualTo(2);
        table.refresh();
        assertThat(table.snapshots()).hasSize(1);
    }

    @Test
    void expiryRemovesOldSnapshotsAndTheFilesOnlyTheyReferenced() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 10; round++) {
            fixture.round(2, 20, 100);
        }
        Set<String> smallFiles = new HashSet<>();
        fixture.dataFiles().forEach(file -> smallFiles.add(fixture.key(file.location())));
        Instant now = Instant.now();
        TableSettings settings = settings(Map.of(
                TableflowConfigs.COMPACTION_TRIGGER_FILES,
                "1",
                TableflowConfigs.SNAPSHOT_RETENTION_MS,
                "3600000",
                TableflowConfigs.ORPHAN_AGE_MS,
                Long.toString(Duration.ofDays(30).toMillis())));
        TableMaintenance.Result compacted = maintenance.run(fixture.table(), settings, now);
        assertThat(compacted.compaction()).isInstanceOf(CompactionOutcome.Compacted.class);
        assertThat(compacted.snapshotsExpired()).isZero();
        fixture.round(2, 20, 100);
        List<Record> rows = fixture.rows();
        Set<String> manifestLists = new HashSet<>();
        fixture.table()
                .snapshots()
                .forEach(snapshot -> manifestLists.add(fixture.key(snapshot.manifestListLocation())));
        Set<String> liveFiles = new HashSet<>();
        fixture.dataFiles().forEach(file -> liveFiles.add(fixture.key(file.location())));

        // Two days later: the interval compacts the round's file into the compacted one, and every
        // snapshot before that is past retention.
        TableMaintenance.Result result = maintenance.run(fixture.table(), settings, now.plus(Duration.ofDays(2)));

        assertThat(result.compaction()).isInstanceOf(CompactionOutcome.Compacted.class);
        assertThat(result.snapshotsExpired()).isEqualTo(12);
        assertThat(result.orphansRemoved()).isZero();
        Table table = fixture.table();
        assertThat(table.snapshots()).hasSize(1);
        Set<String> keys = fixture.keys();
        // Files replaced by an expired snapshot go with it; manifest lists of expired snapshots too.
        assertThat(keys).doesNotContainAnyElementsOf(smallFiles).doesNotContainAnyElementsOf(manifestLists);
        // Files replaced by the current snapshot stay until it expires (or orphan removal takes them).
        assertThat(keys).containsAll(liveFiles);
        fixture.dataFiles().forEach(file -> assertThat(keys).contains(fixture.key(file.location())));
        assertThat(result.filesRemoved()).isGreaterThanOrEqualTo(smallFiles.size() + manifestLists.size());
        assertThat(fixture.rows()).isEqualTo(rows);
        assertThat(Watermark.of(table).orElseThrow().next(0)).isEqualTo(11 * 20);
        assertThat(meters.counter(
                                "floe.tableflow.maintenance.snapshots.expired",
                                "topic",
                                "events",
                                "table",
                                table.name())
                        .count())
                .isEqualTo(12);
    }

    @Test
    void aLoweredMaintenanceIntervalAppliesFromTheLastCleanupNotAfterTheOldInterval() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 3; round++) {
            fixture.round(2, 20, 100);
        }
        Instant now = Instant.now();
        Map<String, String> configs = Map.of(
                TableflowConfigs.COMPACTION_TRIGGER_FILES, "1000", TableflowConfigs.SNAPSHOT_RETENTION_MS, "60000");
        TableSettings hourly = settings(configs);
        assertThat(maintenance.run(fixture.table(), hourly, now).snapshotsExpired())
                .as("the first call cleans up: nothing is old enough yet")
                .isZero();
        Instant later = now.plus(Duration.ofMinutes(5));
        assertThat(maintenance.dueWithoutChanges(hourly, later)).isFalse();

        Map<String, String> lowered = new HashMap<>(configs);
        lowered.put(TableflowConfigs.MAINTENANCE_INTERVAL_MS, "60000");
        TableSettings everyMinute = settings(lowered);
        assertThat(maintenance.dueWithoutChanges(everyMinute, later))
                .as("an interval lowered to a minute, five minutes after the last cleanup")
                .isTrue();
        assertThat(maintenance.run(fixture.table(), everyMinute, later).snapshotsExpired())
                .as("snapshots older than the minute's retention expire at once, not an hour on")
                .isPositive();
    }

    @Test
    void expiryKeepsTheNewestSnapshotWithAWatermarkWhenAnotherEngineCommittedAfterIt() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 5; round++) {
            fixture.round(1, 10, 50);
        }
        Watermark mark = Watermark.of(fixture.table()).orElseThrow();
        for (int i = 0; i < 2; i++) {
            // An engine without Floe's watermark appends a file (empty, never read here).
            Table table = fixture.table();
            table.newAppend()
                    .appendFile(DataFiles.builder(table.spec())
                            .withPath(table.location() + "/data/external-" + i + ".parquet")
                            .withFileSizeInBytes(10)
                            .withRecordCount(0)
                            .build())
                    .commit();
        }
        TableSettings settings = settings(
                Map.of(TableflowConfigs.COMPACTION_TRIGGER_FILES, "1000", TableflowConfigs.SNAPSHOT_RETENTION_MS, "0"));

        TableMaintenance.Result result =
                maintenance.run(fixture.table(), settings, Instant.now().plus(Duration.ofDays(2)));

        assertThat(result.snapshotsExpired()).isEqualTo(4);
        assertThat(fixture.table().snapshots()).hasSize(3);
        assertThat(Watermark.of(fixture.table())).contains(mark);
    }

    @Test
    void orphanRemovalDeletesOnlyOldUnreferencedFilesInTheDataAndMetadataDirectories() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 5; round++) {
            fixture.round(2, 20, 100);
        }
        Instant now = Instant.now().plus(Duration.ofDays(2));
        Set<String> referenced = fixture.keys();
        fixture.putFile("data/crashed-round.parquet", now.minus(Duration.ofDays(3)));
        fixture.putFile("metadata/00042-crashed.metadata.json", now.minus(Duration.ofDays(3)));
        fixture.putFile("data/round-in-flight.parquet", now.minus(Duration.ofMinutes(30)));
        fixture.putFile("_other_format/log.json", now.minus(Duration.ofDays(3)));
        // A target of one byte: no file is small, so no compaction adds files.
        TableSettings settings = settings(Map.of(
                TableflowConfigs.TARGET_FILE_BYTES,
                "1",
                TableflowConfigs.SNAPSHOT_RETENTION_MS,
                Long.toString(Duration.ofDays(30).toMillis()),
                TableflowConfigs.ORPHAN_AGE_MS,
                Long.toString(Duration.ofDays(1).toMillis())));

        TableMaintenance.Result result = maintenance.run(fixture.table(), settings, now);

        assertThat(result.orphansRemoved()).isEqualTo(2);
        assertThat(result.snapshotsExpired()).isZero();
        Set<String> expected = new HashSet<>(referenced);
        expected.add("tables/floe/events/data/round-in-flight.parquet");
        expected.add("tables/floe/events/_other_format/log.json");
        assertThat(fixture.keys()).isEqualTo(expected);
        assertThat(fixture.rows()).hasSize(5 * 2 * 20);
        assertThat(meters.counter(
                                "floe.tableflow.maintenance.orphans.removed",
                                "topic",
                                "events",
                                "table",
                                fixture.table().name())
                        .count())
                .isEqualTo(2);
    }

    @Test
    void aCompactionThatRacesARoundFailsCleanlyAndTheNextOneSucceeds() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 10; round++) {
            fixture.round(2, 20, 100);
        }
        Instant now = Instant.now();
        Table pinned = PinnedTable.pin(fixture.table());
        Compaction.Plan plan = Compaction.plan(pinned, 1 << 20, Long.MAX_VALUE);
        assertThat(plan.files()).hasSize(10);
        OutputFileFactory files = Compaction.outputFiles(pinned, now);
        List<DataFile> added = Compaction.rewrite(pinned, plan.groups().get(0), files, 1 << 20);
        assertThat(fixture.keys()).contains(fixture.key(added.get(0).location()));

        fixture.round(2, 20, 100); // a round commits between the plan and the compaction's commit

        CompactionOutcome outcome = Compaction.commit(pinned, plan, added, now);
        assertThat(outcome).isInstanceOf(CompactionOutcome.Conflict.class);
        assertThat(fixture.keys()).doesNotContain(fixture.key(added.get(0).location()));
        assertThat(fixture.dataFiles()).hasSize(11);
        assertThat(fixture.rows()).hasSize(11 * 2 * 20);
        assertThat(Watermark.of(fixture.table()).orElseThrow().next(0)).isEqualTo(11 * 20);

        TableSettings settings = settings(Map.of(TableflowConfigs.COMPACTION_TRIGGER_FILES, "1"));
        assertThat(maintenance.run(fixture.table(), settings, now).compaction())
                .isInstanceOf(CompactionOutcome.Compacted.class);
        assertThat(fixture.dataFiles()).hasSize(1);
        assertThat(fixture.rows()).hasSize(11 * 2 * 20);
        assertThat(Watermark.of(fixture.table()).orElseThrow().next(1)).isEqualTo(11 * 20);
    }

    @Test
    void aRoundPlannedBeforeACompactionCommittedFailsInsteadOfWritingItsRecordsAgain() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 10; round++) {
            fixture.round(2, 20, 100);
        }
        Table staleRound = PinnedTable.pin(fixture.table());
        TableSettings settings = settings(Map.of(TableflowConfigs.COMPACTION_TRIGGER_FILES, "1"));
        assertThat(maintenance.run(fixture.table(), settings, Instant.now()).compaction())
                .isInstanceOf(CompactionOutcome.Compacted.class);

        assertThatThrownBy(() -> fixture.round(staleRound, 2, 20, 100)).isInstanceOf(CommitFailedException.class);
        assertThat(fixture.rows()).hasSize(10 * 2 * 20);
        fixture.round(2, 20, 100);
        assertThat(fixture.rows()).hasSize(11 * 2 * 20);
    }

    @Test
    void nothingRunsWhenMaintenanceIsOff() {
        fixture = new TableFixture(dir, false);
        for (int round = 0; round < 5; round++) {
            fixture.round(1, 10, 50);
        }
        TableMaintenance.Result result = maintenance.run(
                fixture.table(),
                settings(Map.of(
                        TableflowConfigs.MAINTENANCE_ENABLED,
                        "false",
                        TableflowConfigs.COMPACTION_TRIGGER_FILES,
                        "1",
                        TableflowConfigs.SNAPSHOT_RETENTION_MS,
                        "0")),
                Instant.now().plus(Duration.ofDays(2)));
        assertThat(result).isEqualTo(new TableMaintenance.Result(new CompactionOutcome.NotDue(), 0, 0, 0, 0, 0));
        assertThat(fixture.dataFiles()).hasSize(5);
        assertThat(fixture.table().snapshots()).hasSize(5);
    }

    private static TableSettings settings(Map<String, String> overrides) {
        Map<String, String> configs = new HashMap<>(overrides);
        configs.put(TableflowConfigs.ENABLED, "true");
        return TableSettings.from(configs);
    }

    private static long bytes(List<DataFile> files) {
        return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    }

    private static Set<String> locations(List<DataFile> files) {
        Set<String> locations = new HashSet<>();
        files.forEach(file -> locations.add(file.location()));
        return locations;
    }

    private static long ceilDiv(long value, long divisor) {
        return (value + divisor - 1) / divisor;
    }
}
