package io.floe.agent.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectKeys;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegisteredKeysTest {

    @TempDir
    Path dir;

    @Test
    void handsOutDistinctKeysThatAreRegisteredBeforeUse() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-30T00:00:00Z"));
        try (MetadataStore store = SqlMetadataStore.openSqlite(dir.resolve("m.db"))) {
            RegisteredKeys keys = new RegisteredKeys(
                    new ObjectKeys(clock, "agent-1"),
                    store,
                    "agent-1",
                    clock,
                    Runnable::run,
                    8,
                    Duration.ofSeconds(60));

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
        ManualClock clock = new ManualClock(Instant.parse("2026-11-30T00:00:00Z"));
        try (MetadataStore store = SqlMetadataStore.openSqlite(dir.resolve("m.db"))) {
            RegisteredKeys keys = new RegisteredKeys(
                    new ObjectKeys(clock, "agent-1"),
                    store,
                    "agent-1",
                    clock,
                    Runnable::run,
                    8,
                    Duration.ofSeconds(60));
            keys.take();

            clock.step(Duration.ofSeconds(61));
            ObjectKey fresh = keys.take();

            assertThat(fresh.value()).contains(String.format("%013d", clock.millis()));
        }
    }
}
