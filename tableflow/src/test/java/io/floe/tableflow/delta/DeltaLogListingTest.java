package io.floe.tableflow.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** Which log files the metadata cleanup may delete, from names and modification times alone. */
class DeltaLogListingTest {

    private static final String PREFIX = "tables/floe/events/_delta_log/";
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final List<ObjectInfo> objects = new ArrayList<>();

    @Test
    void keepsTheNewestCheckpointOlderThanTheCutoffAndEverythingAfterIt() {
        for (int version = 0; version <= 25; version++) {
            commit(version, T0.plus(Duration.ofDays(version)));
        }
        checkpoint(10, T0.plus(Duration.ofDays(10)));
        checkpoint(20, T0.plus(Duration.ofDays(20)));
        file("_last_checkpoint", T0.plus(Duration.ofDays(20)));
        file("_sidecars/0a1b.parquet", T0);
        file("00000000000000000005.00000000000000000008.compacted.json", T0.plus(Duration.ofDays(8)));
        file("00000000000000000010.00000000000000000012.compacted.json", T0.plus(Duration.ofDays(12)));
        file("00000000000000000011.00000000000000000013.compacted.json", T0.plus(Duration.ofDays(13)));
        DeltaLogListing listing = DeltaLogListing.of(PREFIX, objects);

        // Versions up to 17 are older than the cutoff: the newest checkpoint at or below is 10.
        List<String> expired =
                names(listing.expired(T0.plus(Duration.ofDays(17)).plusSeconds(1), 25));

        List<String> expected = new ArrayList<>();
        for (int version = 0; version < 10; version++) {
            expected.add(name(version, "crc"));
            expected.add(name(version, "json"));
        }
        expected.add("00000000000000000005.00000000000000000008.compacted.json");
        expected.add("00000000000000000010.00000000000000000012.compacted.json");
        assertThat(expired).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(listing.latestVersion()).hasValue(25);
        assertThat(listing.checkpointAtOrBelow(19)).hasValue(10);
        assertThat(listing.checkpointAtOrBelow(9)).isEmpty();
    }

    @Test
    void nothingExpiresWithoutACheckpointOldEnough() {
        for (int version = 0; version <= 12; version++) {
            commit(version, T0.plus(Duration.ofDays(version)));
        }
        checkpoint(10, T0.plus(Duration.ofDays(10)));
        DeltaLogListing listing = DeltaLogListing.of(PREFIX, objects);
        assertThat(listing.expired(T0.plus(Duration.ofDays(9)), 12)).isEmpty();
        // A commit newer than the cutoff hides the older ones after it (times are taken as monotone).
        objects.set(2, info(name(1, "json"), T0.plus(Duration.ofDays(100))));
        assertThat(DeltaLogListing.of(PREFIX, objects).expired(T0.plus(Duration.ofDays(50)), 12))
                .isEmpty();
    }

    @Test
    void anIncompleteMultiPartCheckpointDoesNotCount() {
        for (int version = 0; version <= 12; version++) {
            commit(version, T0);
        }
        file("00000000000000000005.checkpoint.0000000001.0000000002.parquet", T0);
        file("00000000000000000005.checkpoint.0000000002.0000000002.parquet", T0);
        file("00000000000000000010.checkpoint.0000000001.0000000002.parquet", T0);
        file("00000000000000000010.checkpoint.dc0f9f58-a1a0-46fd-971a-bd8b2e9dbb81.json", T0);
        DeltaLogListing listing = DeltaLogListing.of(PREFIX, objects);

        assertThat(listing.checkpointAtOrBelow(12)).hasValue(5);
        assertThat(names(listing.checkpoint(5)))
                .containsExactly(
                        "00000000000000000005.checkpoint.0000000001.0000000002.parquet",
                        "00000000000000000005.checkpoint.0000000002.0000000002.parquet");
        assertThat(listing.expired(T0, 12)).hasSize(2 * 5);
    }

    @Test
    void aMissingCommitAfterTheCheckpointDeletesNothing() {
        for (int version = 0; version <= 12; version++) {
            if (version != 11) {
                commit(version, T0);
            }
        }
        checkpoint(10, T0);
        DeltaLogListing listing = DeltaLogListing.of(PREFIX, objects);
        assertThatThrownBy(() -> listing.expired(T0, 12)).hasMessageContaining("version 11");
        assertThatThrownBy(() -> listing.commits(0, 12)).hasMessageContaining("version 11");
    }

    private void commit(int version, Instant modified) {
        file(name(version, "json"), modified);
        file(name(version, "crc"), modified);
    }

    private void checkpoint(int version, Instant modified) {
        file(name(version, "checkpoint.parquet"), modified);
    }

    private void file(String name, Instant modified) {
        objects.add(info(name, modified));
    }

    private static ObjectInfo info(String name, Instant modified) {
        return new ObjectInfo(new ObjectKey(PREFIX + name), 10, modified);
    }

    private static String name(int version, String suffix) {
        return String.format(Locale.ROOT, "%020d.%s", version, suffix);
    }

    private static List<String> names(List<DeltaLogFile> files) {
        return files.stream()
                .map(file -> file.object().key().value().substring(PREFIX.length()))
                .toList();
    }
}
