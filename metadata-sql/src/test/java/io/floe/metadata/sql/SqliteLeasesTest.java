package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.group.GroupMembership;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.MetadataStore;
import io.floe.testkit.metadata.LeasesContract;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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

    /**
     * Members recorded before migration 14 keep their sessions: the migration fills in each lease's
     * longest recorded session, so a lease whose members may still be alive is not forgotten.
     */
    @Test
    void membersRecordedBeforeTheSessionColumnExistedStillKeepTheirLease() throws SQLException {
        Path file = directory.resolve("upgraded.db");
        Instant now = Instant.parse("2026-03-01T10:00:00Z");
        Duration ttl = Duration.ofSeconds(6);
        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            CoordinatorLease lease = store.acquireCoordinator("billing", "agent-a", now, ttl, Duration.ZERO)
                    .orElseThrow();
            assertThat(store.recordMembers(
                            lease,
                            new GroupMembership(
                                    GroupMembership.Protocol.CLASSIC,
                                    1,
                                    "consumer",
                                    "range",
                                    List.of(new GroupMembership.Member(
                                            "m-1", null, "client", "/10.0.0.1", 45_000, 300_000)))))
                    .isTrue();
        }
        String backfill = Migrations.ALL.stream()
                .flatMap(migration -> migration.statements().stream())
                .filter(sql -> sql.startsWith("UPDATE group_coordinators SET members_session_ms"))
                .findFirst()
                .orElseThrow();
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement statement = connection.createStatement()) {
            statement.execute("UPDATE group_coordinators SET members_session_ms = 0"); // as before migration 14
            statement.execute(backfill);
        }

        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            Instant membersAlive = now.plus(ttl).plusSeconds(30);
            assertThat(store.expireCoordinators(membersAlive, membersAlive, 10)).isZero();
            Instant membersGone = now.plus(ttl).plusSeconds(46);
            assertThat(store.expireCoordinators(membersGone, membersGone, 10)).isEqualTo(1);
        }
    }
}
