package io.floe.tableflow.changes.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.tableflow.changes.Offsets;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stream's retention hold on a real SQLite store, beside the table's own hold. */
class StreamHoldTest {

    private static final Instant NOW = Instant.parse("2026-12-01T00:00:00Z");
    private static final Offsets AT = Offsets.of(Map.of(0, 10L, 1, 20L));

    @TempDir
    Path dir;

    private MetadataStore store;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private StreamHold hold;

    @BeforeEach
    void open() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        store.createTopic(new NewTopic("accounts", 2, Map.of()));
        store.holdRetention("tableflow", "accounts", Map.of(0, 50L, 1, 60L)); // the table's, at its watermark
        hold = new StreamHold(store, "accounts", Duration.ofHours(24), new StreamMetrics(meters, "accounts"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void theLogIsHeldAtWhatTheStreamHasNotPublishedAndMovesWithIt() {
        hold.before(Offsets.of(Map.of(0, 10L, 1, 20L)));
        assertThat(store.retentionHolds("accounts")).isEqualTo(Map.of(0, 10L, 1, 20L));

        hold.after(Offsets.of(Map.of(0, 50L, 1, 60L)));
        assertThat(store.retentionHolds("accounts")).isEqualTo(Map.of(0, 50L, 1, 60L));

        hold.release();
        store.releaseRetention("tableflow", "accounts");
        assertThat(store.retentionHolds("accounts")).isEmpty();
    }

    @Test
    void aStreamStuckLongerThanTheTimeoutGivesItsHoldUpUntilItPublishesAgain() {
        hold.before(Offsets.of(Map.of(0, 10L, 1, 20L)));

        hold.stuck(NOW, AT);
        hold.stuck(NOW.plus(Duration.ofHours(23)), AT);
        assertThat(store.retentionHolds("accounts")).as("within the timeout").isEqualTo(Map.of(0, 10L, 1, 20L));
        assertThat(gauge()).isEqualTo(Duration.ofHours(23).toSeconds());

        hold.stuck(NOW.plus(Duration.ofHours(25)), null);
        assertThat(store.retentionHolds("accounts")).as("only the table's hold").isEqualTo(Map.of(0, 50L, 1, 60L));
        assertThat(meters.get("floe.tableflow.changes.stream.hold.released")
                        .counter()
                        .count())
                .isEqualTo(1);
        hold.stuck(NOW.plus(Duration.ofHours(26)), AT);
        assertThat(meters.get("floe.tableflow.changes.stream.hold.released")
                        .counter()
                        .count())
                .as("given up once")
                .isEqualTo(1);

        hold.moving();
        hold.after(Offsets.of(Map.of(0, 30L, 1, 30L)));
        assertThat(store.retentionHolds("accounts"))
                .as("written again once it publishes")
                .isEqualTo(Map.of(0, 30L, 1, 30L));
        assertThat(gauge()).isZero();
    }

    /** Another agent published meanwhile (the position moved): the count starts again. */
    @Test
    void aPositionThatMovedMeanwhileStartsTheCountAgain() {
        hold.before(AT);
        hold.stuck(NOW, AT);
        hold.forget(); // the lease went and came back
        hold.stuck(NOW.plus(Duration.ofHours(25)), Offsets.of(Map.of(0, 12L, 1, 20L)));
        assertThat(store.retentionHolds("accounts")).isEqualTo(AT.next());

        hold.stuck(NOW.plus(Duration.ofHours(50)), Offsets.of(Map.of(0, 12L, 1, 20L)));
        assertThat(store.retentionHolds("accounts")).as("only the table's hold").isEqualTo(Map.of(0, 50L, 1, 60L));
    }

    private double gauge() {
        return meters.get("floe.tableflow.changes.stream.stalled.seconds")
                .gauge()
                .value();
    }
}
