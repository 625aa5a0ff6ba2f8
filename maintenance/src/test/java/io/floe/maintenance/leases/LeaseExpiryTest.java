package io.floe.maintenance.leases;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.AgentRegistration;
import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.MetadataStore;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lease expiry over a week of virtual time on SQLite: what a deleted topic's table, a killed agent and
 * a cluster that shrank leave behind goes; what runs stays.
 */
class LeaseExpiryTest {

    private static final Instant START = Instant.parse("2026-12-01T00:00:00Z");
    private static final Duration TTL = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(START);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private MetadataStore store;
    private LeaseExpiry expiry;

    @BeforeEach
    void open() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"), clock);
        expiry = new LeaseExpiry(store, store, meters);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void forgetsTheLeasesOfJobsThatStoppedAndTheRowsOfKilledAgentsAndKeepsWhatRuns() {
        JobLease deletedTopic = store.acquireLease("tableflow/orders-2026-11", "agent-a", START, TTL)
                .orElseThrow();
        JobLease taken = store.acquireLease("tableflow/orders-2026-11", "agent-b", deletedTopic.expiresAt(), TTL)
                .orElseThrow();
        store.heartbeatAgent(registration("agent-killed", 1, START));
        store.allocateNodeId("agent-killed", START, Duration.ofSeconds(6));

        // A week and a day: one agent runs its jobs and heartbeats throughout, renewing its leases.
        for (int hour = 1; hour <= 8 * 24; hour++) {
            clock.step(Duration.ofHours(1));
            store.acquireLease("retention", "agent-live", clock.instant(), TTL);
            store.acquireLease("tableflow/audit", "agent-live", clock.instant(), TTL);
            store.heartbeatAgent(registration("agent-live", 0, clock.instant()));
            String round = expiry.run(clock.instant());
            if (hour == 23) {
                assertThat(round).as("a day has not passed").isEqualTo("jobLeases=0 agents=0");
            }
            if (hour == 25) {
                assertThat(round).as("the killed agent's row").isEqualTo("jobLeases=0 agents=1");
            }
            if (hour == 7 * 24 + 1) {
                assertThat(round)
                        .as("the deleted topic's table and the killed agent's node id, a week unheld")
                        .isEqualTo("jobLeases=2 agents=0");
            }
        }

        assertThat(store.liveAgents(Instant.EPOCH))
                .extracting(AgentRegistration::agentId)
                .containsExactly("agent-live");
        assertThat(meters.counter("floe.job.leases.expired").count()).isEqualTo(2);
        assertThat(meters.counter("floe.agents.expired").count()).isEqualTo(1);
        assertThat(store.acquireLease("retention", "agent-other", clock.instant(), TTL))
                .as("the running job's lease stays with its holder")
                .isEmpty();
        assertThat(store.acquireLease("tableflow/orders-2026-11", "agent-live", clock.instant(), TTL))
                .as("a topic of that name again: its table's lease starts above the epochs it had")
                .hasValueSatisfying(lease -> assertThat(lease.epoch()).isGreaterThan(taken.epoch()));
    }

    private static AgentRegistration registration(String agentId, int nodeId, Instant at) {
        return new AgentRegistration(agentId, nodeId, "10.0.0." + (nodeId + 1), 9092, null, at);
    }
}
