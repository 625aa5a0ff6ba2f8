package io.floe.tableflow.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.delta.DeltaFileReferences;
import io.floe.tableflow.delta.DeltaMetrics;
import io.floe.tableflow.delta.DeltaMirror;
import io.floe.tableflow.delta.DeltaReads;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta time travel next to Iceberg's maintenance, on an injected clock: Iceberg expires its snapshots
 * after a day, but a Delta reader of an older version reads every file it lists and the same rows
 * until {@code delta.deletedFileRetentionDuration} (1 week) has passed since the Delta log removed the
 * files; then orphan removal deletes them, and after {@code delta.logRetentionDuration} (30 days) the
 * log's expired files go, while the latest version still reads the table's rows.
 */
class DeltaTimeTravelTest {

    @TempDir
    Path dir;

    /** Starts at the wall clock: file modification times (the log's ages) come from it. */
    private final ManualClock clock = new ManualClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TableMaintenance maintenance = new TableMaintenance(meters, "events", 256L << 20);

    @Test
    void olderDeltaVersionsReadTheirRowsWithinTheRetentionThenTheirFilesAndTheExpiredLogGo() throws Exception {
        try (TableFixture fixture = new TableFixture(dir, false)) {
            Delta delta = new Delta(fixture);
            for (int round = 0; round < 3; round++) {
                fixture.round(2, 5, 16);
                delta.sync();
            }
            Version first = delta.version();
            assertThat(first.rows()).containsExactlyInAnyOrderElementsOf(delta.icebergRows());

            // A compaction replaces the three files: the Delta log removes them now.
            assertThat(maintenance
                            .run(fixture.table(), settings("1"), clock.instant())
                            .compaction())
                    .isInstanceOf(CompactionOutcome.Compacted.class);
            delta.sync();
            for (int round = 0; round < 17; round++) {
                fixture.round(2, 5, 16);
                delta.sync();
            }
            Version second = delta.version();
            // Two checkpoints after the removal: Kernel's second one no longer carries its tombstones.
            assertThat(delta.logNames())
                    .as("checkpoints every ten versions")
                    .contains(name(10, "checkpoint.parquet"), name(20, "checkpoint.parquet"));
            DeltaFileReferences.TombstoneCache cache = new DeltaFileReferences.TombstoneCache();
            Set<String> retained = retainedKeys(fixture, cache);
            assertThat(retained).containsAll(first.keys(fixture)).containsAll(second.keys(fixture));
            assertThat(cache.reads())
                    .as("the checkpoint at 10, before the latest")
                    .isEqualTo(1);
            assertThat(retainedKeys(fixture, cache)).isEqualTo(retained);
            assertThat(cache.reads()).as("read once").isEqualTo(1);

            // Two days on: Iceberg expires every snapshot but the one of another compaction (which
            // replaces the round files since), and with them the three files the first compaction
            // replaced, which the Delta log removed two days ago.
            clock.step(Duration.ofDays(2));
            TableMaintenance.Result day2 = maintenance.run(fixture.table(), settings("1000"), clock.instant());
            delta.sync();
            delta.assertReadsAsBefore(first);
            delta.assertReadsAsBefore(second);
            assertThat(day2.compaction()).isInstanceOf(CompactionOutcome.Compacted.class);
            assertThat(day2.snapshotsExpired()).isPositive();
            assertThat(day2.filesKeptForDelta()).isEqualTo(first.files().size());
            assertThat(icebergReferenced(fixture)).doesNotContainAnyElementsOf(first.keys(fixture));

            // Eight days after the first compaction its files' tombstones expired: orphan removal deletes
            // them; the files the second one replaced (removed from Delta six days ago) stay.
            clock.step(Duration.ofDays(6));
            TableMaintenance.Result day8 = maintenance.run(fixture.table(), settings("1000"), clock.instant());
            assertThat(day8.orphansRemoved())
                    .isGreaterThanOrEqualTo(first.files().size());
            assertThat(fixture.keys()).doesNotContainAnyElementsOf(first.keys(fixture));
            delta.assertReadsAsBefore(second);
            delta.assertLatestIsTheIcebergTable();

            clock.step(Duration.ofDays(2));
            maintenance.run(fixture.table(), settings("1000"), clock.instant());
            assertThat(fixture.keys()).doesNotContainAnyElementsOf(second.keys(fixture));
            delta.assertLatestIsTheIcebergTable();

            // Thirty days after the log was written, the versions before its newest checkpoint expired.
            Set<String> log = delta.logNames();
            clock.step(Duration.ofDays(31));
            TableMaintenance.Result month = maintenance.run(fixture.table(), settings("1000"), clock.instant());
            delta.assertLatestIsTheIcebergTable();
            Set<String> expired = log.stream()
                    .filter(name -> name.compareTo(name(20, "")) < 0)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(expired)
                    .contains(name(0, "json"), name(10, "checkpoint.parquet"), name(19, "json"), name(19, "crc"));
            assertThat(month.deltaLogFilesRemoved()).isEqualTo(expired.size());
            Set<String> kept = new TreeSet<>(log);
            kept.removeAll(expired);
            assertThat(delta.logNames()).isEqualTo(kept).contains(name(20, "checkpoint.parquet"), "_last_checkpoint");
            delta.assertLatestIsTheIcebergTable();
            assertThatThrownBy(() -> delta.read(first.number(), new ArrayList<>()))
                    .as("a version before the log's retention is gone");
        }
    }

    private static TableSettings settings(String compactionTriggerFiles) {
        Map<String, String> configs = new HashMap<>();
        configs.put(TableflowConfigs.ENABLED, "true");
        configs.put(TableflowConfigs.DELTA_ENABLED, "true");
        configs.put(TableflowConfigs.COMPACTION_TRIGGER_FILES, compactionTriggerFiles);
        return TableSettings.from(configs);
    }

    /** The files the Delta log may still be read from now, as object keys. */
    private Set<String> retainedKeys(TableFixture fixture, DeltaFileReferences.TombstoneCache cache) {
        return DeltaFileReferences.read(fixture.table(), clock.instant(), cache)
                .orElseThrow()
                .retainedAt(clock.instant())
                .stream()
                .map(fixture::key)
                .collect(Collectors.toSet());
    }

    /** Every file the Iceberg table's metadata references, as object keys. */
    private static Set<String> icebergReferenced(TableFixture fixture) {
        Table table = fixture.table();
        return OrphanFiles.reachable(
                        table, ((HasTableOperations) table).operations().current())
                .stream()
                .map(fixture::key)
                .collect(Collectors.toSet());
    }

    private static String name(long version, String suffix) {
        return String.format(java.util.Locale.ROOT, "%020d.%s", version, suffix);
    }

    /** A Delta version as a reader saw it: its number, the files it read and its rows. */
    record Version(long number, List<String> files, List<Map<String, Object>> rows) {
        Set<String> keys(TableFixture fixture) {
            return files.stream().map(fixture::key).collect(Collectors.toSet());
        }
    }

    /** The fixture table's Delta log, mirrored on the test's clock, and read with Delta Kernel. */
    private final class Delta {
        private final TableFixture fixture;
        private final DeltaMirror mirror;
        private final ObjectLocations locations;

        Delta(TableFixture fixture) {
            this.fixture = fixture;
            this.mirror = new DeltaMirror(new DeltaMetrics(meters, "events"), clock);
            this.locations = new ObjectLocations("file:" + fixture.objectsDir.toAbsolutePath());
        }

        void sync() {
            assertThat(mirror.sync(fixture.table())).isEqualTo(DeltaMirror.Outcome.COMMITTED);
        }

        String path() {
            return locations.location(locations.key(fixture.table().location()));
        }

        Version version() {
            long number = DeltaReads.latestVersion(fixture.objects, locations, path());
            List<String> files = new ArrayList<>();
            return new Version(number, files, read(number, files));
        }

        List<Map<String, Object>> read(long version, List<String> files) {
            return DeltaReads.deltaRowsAt(fixture.objects, locations, path(), version, files);
        }

        List<Map<String, Object>> icebergRows() {
            return DeltaReads.icebergRows(fixture.table(), fixture.rows());
        }

        /** Every file the version lists is there, and it reads the same rows. */
        void assertReadsAsBefore(Version version) {
            assertThat(DeltaReads.deltaFilesAt(fixture.objects, locations, path(), version.number()))
                    .containsExactlyInAnyOrderElementsOf(version.files());
            assertThat(fixture.keys())
                    .as("files of delta version %s", version.number())
                    .containsAll(version.keys(fixture));
            assertThat(read(version.number(), new ArrayList<>()))
                    .as("rows of delta version %s", version.number())
                    .containsExactlyInAnyOrderElementsOf(version.rows());
        }

        void assertLatestIsTheIcebergTable() {
            assertThat(DeltaReads.deltaRows(fixture.objects, locations, path()))
                    .containsExactlyInAnyOrderElementsOf(icebergRows());
        }

        /** Names of the files in the log directory. */
        Set<String> logNames() {
            String prefix = locations.keyPrefix(path() + "/_delta_log");
            return fixture.objects.list(prefix).stream()
                    .map(info -> info.key().value().substring(prefix.length()))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
