package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.LeasesContract;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link LeasesContract} on an embedded SQLite store, each test on a fresh file, plus what is
 * particular to SQLite.
 */
class SqliteLeasesTest extends LeasesContract {

    @TempDir
    Path directory;

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openSqlite(directory.resolve("contract").resolve("metadata.db"));
    }

    /** The file lock says the earlier process is gone: its leases need not run out first. */
    @Test
    void reopeningAnEmbeddedStoreEndsTheLeasesOfTheProcessBefore() {
        Path file = directory.resolve("restart.db");
        Instant now = Instant.now();
        Duration ttl = Duration.ofHours(1);
        Duration session = Duration.ofSeconds(45);
        CoordinatorLease before;
        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            assertThat(store.allocateNodeId("agent-before", now, ttl).nodeId()).isZero();
            before = store.acquireCoordinator("billing", "agent-before", now, ttl, session)
                    .orElseThrow();
        }

        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            Instant restarted = Instant.now();
            assertThat(store.allocateNodeId("agent-after", restarted, ttl).nodeId())
                    .isZero();
            CoordinatorLease after = store.acquireCoordinator("billing", "agent-after", restarted, ttl, session)
                    .orElseThrow();
            assertThat(after.epoch()).isEqualTo(before.epoch() + 1);
            // The earlier process's consumers may still be alive: their sessions are waited for, from the reopen.
            assertThat(after.priorMembersUntil()).isBetween(now.plus(session), restarted.plus(session));
        }
    }
}
