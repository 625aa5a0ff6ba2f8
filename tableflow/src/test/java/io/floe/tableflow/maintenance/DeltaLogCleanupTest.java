package io.floe.tableflow.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.delta.DeltaLogCleanup;
import io.floe.tableflow.delta.DeltaMetrics;
import io.floe.tableflow.delta.DeltaMirror;
import io.floe.tableflow.delta.DeltaReads;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Delta log's expired files: Kernel's checkpoints leave them, {@link DeltaLogCleanup} deletes them. */
class DeltaLogCleanupTest {

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));

    @Test
    void kernelsCheckpointsLeaveExpiredLogFilesAndTheCleanupDeletesThoseBeforeAnOldEnoughCheckpoint() throws Exception {
        try (TableFixture fixture = new TableFixture(dir, false)) {
            DeltaMirror mirror = new DeltaMirror(new DeltaMetrics(new SimpleMeterRegistry(), "events"), clock);
            ObjectLocations locations = new ObjectLocations("file:" + fixture.objectsDir.toAbsolutePath());
            String path = locations.location(locations.key(fixture.table().location()));
            String prefix = locations.keyPrefix(path + "/_delta_log");
            for (int round = 0; round < 11; round++) {
                fixture.round(2, 5, 16);
                mirror.sync(fixture.table());
            }
            // Versions 0 to 11, with a checkpoint at 10, written sixty days ago.
            Set<String> old = names(fixture, prefix);
            assertThat(old).contains(name(10, "checkpoint.parquet"), name(11, "json"));
            for (String name : old) {
                backdate(fixture, prefix + name, clock.instant().minus(Duration.ofDays(60)));
            }
            for (int round = 0; round < 10; round++) {
                fixture.round(2, 5, 16);
                mirror.sync(fixture.table());
            }
            Set<String> all = names(fixture, prefix);
            assertThat(all)
                    .as("Kernel checkpointed at version 20 and cleaned nothing")
                    .contains(name(20, "checkpoint.parquet"))
                    .containsAll(old);

            DeltaLogCleanup.Outcome outcome = DeltaLogCleanup.clean(fixture.table(), clock.instant());

            Set<String> expired = old.stream()
                    .filter(name -> name.compareTo(name(10, "")) < 0)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(expired).contains(name(0, "json"), name(9, "json"), name(9, "crc"));
            Set<String> kept = new TreeSet<>(all);
            kept.removeAll(expired);
            assertThat(names(fixture, prefix)).isEqualTo(kept);
            assertThat(outcome).isEqualTo(new DeltaLogCleanup.Outcome(expired.size(), null));
            assertThat(DeltaReads.deltaRows(fixture.objects, locations, path))
                    .containsExactlyInAnyOrderElementsOf(DeltaReads.icebergRows(fixture.table(), fixture.rows()));
            assertThat(DeltaReads.deltaRowsAt(fixture.objects, locations, path, 10, new ArrayList<>()))
                    .as("the oldest version kept")
                    .hasSize(10 * 2 * 5);

            assertThat(DeltaLogCleanup.clean(fixture.table(), clock.instant()))
                    .isEqualTo(new DeltaLogCleanup.Outcome(0, null));
            clock.step(Duration.ofDays(31));
            assertThat(DeltaLogCleanup.clean(fixture.table(), clock.instant()).removed())
                    .as("a month later, up to the checkpoint at 20")
                    .isEqualTo(kept.stream()
                            .filter(name -> name.compareTo(name(20, "")) < 0)
                            .count());
            assertThat(DeltaReads.deltaRows(fixture.objects, locations, path))
                    .containsExactlyInAnyOrderElementsOf(DeltaReads.icebergRows(fixture.table(), fixture.rows()));
        }
    }

    @Test
    void aTableWithoutADeltaLogHasNothingToClean() throws Exception {
        try (TableFixture fixture = new TableFixture(dir, false)) {
            fixture.round(1, 5, 16);
            assertThat(DeltaLogCleanup.clean(fixture.table(), clock.instant()).removed())
                    .isZero();
        }
    }

    private static Set<String> names(TableFixture fixture, String prefix) {
        return fixture.objects.list(prefix).stream()
                .map(info -> info.key().value().substring(prefix.length()))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static void backdate(TableFixture fixture, String key, Instant modified) {
        try {
            Files.setLastModifiedTime(fixture.objectsDir.resolve(key), FileTime.from(modified));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String name(long version, String suffix) {
        return String.format(Locale.ROOT, "%020d.%s", version, suffix);
    }
}
