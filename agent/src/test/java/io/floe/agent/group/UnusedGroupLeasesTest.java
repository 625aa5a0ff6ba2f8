package io.floe.agent.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.metadata.sql.SqlMetadataStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A week of virtual time on one SQLite store: applications that name a group per run leave a coordinator
 * lease per group (and the members recorded with it); the coordinator's offset retention sweep forgets
 * them once nobody coordinated them for a day, and keeps the lease of a group in use.
 */
class UnusedGroupLeasesTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final int RUNS = 20;
    private static final String IN_USE = "orders-app";

    @TempDir
    Path dir;

    private MetadataStore store;
    private CoordinatorFixture agent;
    private CoordinatorFixture killed;
    /** Reads the store's tables directly, to count rows. */
    private Connection tables;

    @BeforeEach
    void start() throws SQLException {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        tables = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("metadata.db"));
        agent = new CoordinatorFixture(store, GroupCoordinatorConfig.defaults(), "agent-a");
        killed = new CoordinatorFixture(store, GroupCoordinatorConfig.defaults(), "agent-b");
    }

    @AfterEach
    void stop() throws SQLException {
        tables.close();
        agent.close();
        killed.close();
        store.close();
    }

    @Test
    void aWeekLaterTheLeasesOfGroupsUsedOnceAreGoneAndTheLeaseOfAGroupInUseStays() throws SQLException {
        // A group with members whose agent is killed: its lease runs out with the members recorded under it.
        killed.stableGroup(2);
        for (int run = 0; run < RUNS; run++) {
            assertThat(commit("run-" + run, run)).isEqualTo(GroupError.NONE);
        }
        assertThat(commit(IN_USE, 0)).isEqualTo(GroupError.NONE);
        assertThat(rows("group_coordinators")).isEqualTo(RUNS + 2);
        assertThat(rows("group_coordinator_members")).isEqualTo(2);

        // A week, the sweep every hour; the group in use commits every twelve hours.
        for (int hour = 1; hour <= 7 * 24; hour++) {
            agent.timers.advance(Duration.ofHours(1).toMillis());
            if (hour % 12 == 0) {
                assertThat(commit(IN_USE, hour)).isEqualTo(GroupError.NONE);
            }
            agent.coordinator.expireOffsets();
            assertThat(leaseOf(IN_USE))
                    .as("the lease of the group in use, hour %s", hour)
                    .isTrue();
            if (hour < 24) {
                assertThat(rows("group_coordinators"))
                        .as("kept for a day, hour %s", hour)
                        .isEqualTo(RUNS + 2);
            }
        }

        assertThat(rows("group_coordinators")).as("only the group in use").isEqualTo(1);
        assertThat(rows("group_coordinator_members")).isZero();
        assertThat(agent.meters.counter("floe.group.coordinator.leases.expired").count())
                .isEqualTo(RUNS + 1);
        // A group used once is coordinated again afresh.
        assertThat(commit("run-0", 1_000)).isEqualTo(GroupError.NONE);
        assertThat(agent.coordinator.committedOffsets("run-0"))
                .extractingByKey(ORDERS_0)
                .extracting(CommittedOffset::offset)
                .isEqualTo(1_000L);
        assertThat(rows("group_coordinators")).isEqualTo(2);
    }

    /** A simple consumer's commit (no membership), as Flink's Kafka source and Connect's tasks make. */
    private GroupError commit(String groupId, long offset) {
        return agent.coordinator
                .commitOffsets(new OffsetCommitRequest(
                        groupId, "", null, -1, Map.of(ORDERS_0, new OffsetCommitRequest.NewOffset(offset, -1, ""))))
                .error();
    }

    private int rows(String table) throws SQLException {
        return count("SELECT COUNT(*) FROM " + table, List.of());
    }

    private boolean leaseOf(String groupId) throws SQLException {
        return count("SELECT COUNT(*) FROM group_coordinators WHERE group_id = ?", List.of(groupId)) == 1;
    }

    private int count(String sql, List<String> parameters) throws SQLException {
        try (PreparedStatement select = tables.prepareStatement(sql)) {
            for (int i = 0; i < parameters.size(); i++) {
                select.setString(i + 1, parameters.get(i));
            }
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
