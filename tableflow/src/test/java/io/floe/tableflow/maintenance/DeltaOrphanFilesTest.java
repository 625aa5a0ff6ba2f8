package io.floe.tableflow.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.delta.DeltaMetrics;
import io.floe.tableflow.delta.DeltaMirror;
import io.floe.tableflow.delta.DeltaReads;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Orphan removal and snapshot expiry next to a Delta log: the log and the files its latest version
 * references stay, and a log that cannot be read deletes nothing it might reference.
 */
class DeltaOrphanFilesTest {

    @TempDir
    Path dir;

    @Test
    void keepsTheDeltaLogAndTheFilesALaggingDeltaVersionReferences() throws Exception {
        try (TableFixture fixture = new TableFixture(dir, false)) {
            ManualClock clock = new ManualClock(Instant.now());
            DeltaMirror mirror = new DeltaMirror(new DeltaMetrics(new SimpleMeterRegistry(), "events"), clock);
            fixture.round(2, 5, 16);
            fixture.round(2, 5, 16);
            assertThat(mirror.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.COMMITTED);
            ObjectLocations locations = new ObjectLocations("file:" + fixture.objectsDir.toAbsolutePath());
            String path = fixture.table().location();
            assertThat(DeltaReads.deltaRows(fixture.objects, locations, path))
                    .containsExactlyInAnyOrderElementsOf(DeltaReads.icebergRows(fixture.table(), fixture.rows()));

            // Iceberg lets one file go (deleted from the table, its snapshot expired, the file kept)
            // while the Delta log lags: the file is an Iceberg orphan that Delta readers still read.
            DataFile dropped = fixture.dataFiles().get(0);
            Table table = fixture.table();
            table.newDelete().deleteFile(dropped).commit();
            table.refresh();
            table.expireSnapshots()
                    .expireOlderThan(table.currentSnapshot().timestampMillis() + 1)
                    .retainLast(1)
                    .deleteWith(file -> {})
                    .commit();
            Set<String> logBefore = logKeys(fixture);
            assertThat(logBefore).isNotEmpty();

            OrphanFiles.Outcome outcome = OrphanFiles.remove(
                    fixture.table(), Duration.ofMinutes(10), Instant.now().plus(Duration.ofDays(1)));

            assertThat(outcome.skipped()).isNull();
            assertThat(fixture.keys()).contains(fixture.key(dropped.location()));
            assertThat(logKeys(fixture)).isEqualTo(logBefore);
            List<String> deltaFiles = List.copyOf(DeltaReads.deltaFiles(fixture.objects, locations, path));
            assertThat(deltaFiles).contains(locations.location(locations.key(dropped.location())));

            // Once Delta follows, the file is removed from the Delta log too: readers of older Delta
            // versions still read it for the log's deleted-file retention (a week), then it goes.
            assertThat(mirror.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.COMMITTED);
            OrphanFiles.remove(
                    fixture.table(),
                    Duration.ofMinutes(10),
                    clock.instant().plus(Duration.ofDays(7)).minusMillis(1));
            assertThat(fixture.keys()).contains(fixture.key(dropped.location()));
            OrphanFiles.remove(
                    fixture.table(), Duration.ofMinutes(10), clock.instant().plus(Duration.ofDays(7)));
            assertThat(fixture.keys()).doesNotContain(fixture.key(dropped.location()));
            assertThat(logKeys(fixture)).containsAll(logBefore);
        }
    }

    @Test
    void aDeltaLogThatCannotBeReadSkipsTheRun() throws Exception {
        try (TableFixture fixture = new TableFixture(dir, false)) {
            fixture.round(2, 5, 16);
            Instant now = Instant.now().plus(Duration.ofDays(2));
            fixture.putFile("data/crashed-round.parquet", now.minus(Duration.ofDays(3)));
            fixture.putFile("_delta_log/00000000000000000000.json", now.minus(Duration.ofDays(3)));
            Set<String> before = fixture.keys();

            OrphanFiles.Outcome outcome = OrphanFiles.remove(fixture.table(), Duration.ofDays(1), now);

            assertThat(outcome.skipped()).isEqualTo("its delta log cannot be read");
            assertThat(fixture.keys()).isEqualTo(before);
        }
    }

    @Test
    void snapshotExpiryKeepsTheDataFilesWhenTheDeltaLogCannotBeRead() throws Exception {
        try (TableFixture fixture = new TableFixture(dir, false)) {
            for (int round = 0; round < 3; round++) {
                fixture.round(2, 5, 16);
            }
            Set<String> replaced = fixture.dataFiles().stream()
                    .map(file -> fixture.key(file.location()))
                    .collect(Collectors.toSet());
            Instant now = Instant.now().plus(Duration.ofDays(2));
            assertThat(Compaction.run(fixture.table(), 1L << 20, 1L << 30, now))
                    .isInstanceOf(CompactionOutcome.Compacted.class);
            fixture.round(2, 5, 16); // the compaction's snapshot, which replaced the files, expires too
            fixture.putFile("_delta_log/00000000000000000000.json", now);
            Table compacted = fixture.table();
            Set<String> manifestLists = new HashSet<>();
            for (Snapshot snapshot : compacted.snapshots()) {
                if (snapshot.snapshotId() != compacted.currentSnapshot().snapshotId()) {
                    manifestLists.add(fixture.key(snapshot.manifestListLocation()));
                }
            }

            SnapshotExpiry.Outcome outcome = SnapshotExpiry.expire(fixture.table(), Duration.ofDays(1), now);

            assertThat(outcome.snapshotsExpired()).isEqualTo(4);
            assertThat(outcome.deltaUnreadable()).isTrue();
            assertThat(fixture.keys())
                    .as("the data files the expired snapshots let go, for orphan removal to judge")
                    .containsAll(replaced)
                    .doesNotContainAnyElementsOf(manifestLists);
            assertThat(fixture.rows()).hasSize(4 * 2 * 5);
        }
    }

    private static Set<String> logKeys(TableFixture fixture) {
        return fixture.keys().stream()
                .filter(key -> key.contains("/_delta_log/"))
                .collect(Collectors.toSet());
    }
}
