package io.floe.agent.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.ObjectKeys;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.object.ObjectKey;
import io.floe.metadata.sql.SqlMetadataStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegisteredKeysTest {

    @TempDir
    Path dir;

    /** A clock the test moves by hand. */
    private static final class ManualClock extends Clock {
        private Instant now = Instant.parse("2026-11-30T00:00:00Z");

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration duration) {
            now = now.plus(duration);
        }
    }

    @Test
    void handsOutDistinctKeysThatAreRegisteredBeforeUse() {
        ManualClock clock = new ManualClock();
        try (MetadataStore store = SqlMetadataStore.openSqlite(dir.resolve("m.db"))) {
            RegisteredKeys keys = new RegisteredKeys(new ObjectKeys(clock, "agent-1"), store, "agent-1", clock,
                    Runnable::run, 8, Duration.ofSeconds(60));

            Set<ObjectKey> taken = new HashSet<>();
            for (int i = 0; i < 30; i++) {
                taken.add(keys.take());
            }

            assertThat(taken).hasSize(30);
            // A registered key can be committed; an unregistered one is rejected.
            for (ObjectKey key : taken) {
                assertThat(store.commit(new ObjectCommit(key, 0, List.of())))
                        .isInstanceOf(CommitOutcome.Committed.class);
            }
            assertThat(store.commit(new ObjectCommit(new ObjectKey("segments/00/never.seg"), 0, List.of())))
                    .isInstanceOf(CommitOutcome.Rejected.class);
        }
    }

    @Test
    void neverHandsOutAReservedKeyOlderThanItsMaxAge() {
        ManualClock clock = new ManualClock();
        try (MetadataStore store = SqlMetadataStore.openSqlite(dir.resolve("m.db"))) {
            RegisteredKeys keys = new RegisteredKeys(new ObjectKeys(clock, "agent-1"), store, "agent-1", clock,
                    Runnable::run, 8, Duration.ofSeconds(60));
            keys.take();

            clock.advance(Duration.ofSeconds(61));
            ObjectKey fresh = keys.take();

            assertThat(fresh.value()).contains(String.format("%013d", clock.millis()));
        }
    }
}
