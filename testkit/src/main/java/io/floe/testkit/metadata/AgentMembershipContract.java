package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.metadata.AgentMembership;
import io.floe.core.metadata.AgentRegistration;
import io.floe.core.metadata.NodeIdClaim;
import io.floe.core.metadata.NodeIdLease;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link AgentMembership} (DESIGN §8): agents' heartbeats and the node ids they hold
 * under leases. Extend it next to each implementation; every method of the role must be called by some
 * test here (see {@link RoleContract}).
 */
public abstract class AgentMembershipContract extends RoleContract {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Duration TTL = Duration.ofSeconds(6);

    @Override
    protected final Class<?> role() {
        return AgentMembership.class;
    }

    @Test
    void heartbeatsRegisterAgentsAndReplaceTheirEntries() {
        Instant start = Instant.ofEpochSecond(1_700_000_000L, 123_456_789);
        AgentRegistration a = new AgentRegistration("agent-a", 1, "10.0.0.1", 9092, "rack-1", start);
        AgentRegistration b = new AgentRegistration("agent-b", 2, "10.0.0.2", 9093, null, start.plusMillis(5));
        store.heartbeatAgent(b);
        store.heartbeatAgent(a);

        assertThat(store.liveAgents(start.minusSeconds(1))).containsExactly(a, b);

        AgentRegistration moved = new AgentRegistration("agent-a", 3, "10.0.0.9", 19092, null, start.plusSeconds(10));
        store.heartbeatAgent(moved);

        assertThat(store.liveAgents(start.minusSeconds(1))).containsExactly(moved, b);
        assertThat(moved.heartbeatAt()).isEqualTo(Instant.ofEpochMilli(1_700_000_010_123L));
    }

    @Test
    void liveAgentsAreThoseWithAHeartbeatAfterTheCutoff() {
        Instant start = Instant.ofEpochMilli(1_700_000_000_000L);
        assertThat(store.liveAgents(Instant.EPOCH)).isEmpty();
        AgentRegistration early = new AgentRegistration("agent-early", 4, "early.example", 9092, null, start);
        AgentRegistration late =
                new AgentRegistration("agent-late", 5, "late.example", 9092, "b", start.plusSeconds(10));
        store.heartbeatAgent(early);
        store.heartbeatAgent(late);

        assertThat(store.liveAgents(start.minusMillis(1))).containsExactly(early, late);
        assertThat(store.liveAgents(start)).containsExactly(late);
        assertThat(store.liveAgents(start.plusSeconds(10))).isEmpty();
    }

    /** Killed agents leave their rows; the silent ones go, oldest first, and come back with a heartbeat. */
    @Test
    void agentsSilentSinceTheCutoffAreRemovedOldestFirst() {
        Instant start = Instant.ofEpochMilli(1_700_000_000_000L);
        AgentRegistration killedFirst = new AgentRegistration("agent-z", 1, "10.0.0.1", 9092, null, start);
        AgentRegistration killedLater =
                new AgentRegistration("agent-a", 2, "10.0.0.2", 9092, null, start.plusSeconds(1));
        AgentRegistration live = new AgentRegistration("agent-m", 3, "10.0.0.3", 9092, null, start.plusSeconds(9));
        store.heartbeatAgent(killedLater);
        store.heartbeatAgent(killedFirst);
        store.heartbeatAgent(live);

        assertThat(store.expireAgents(start.plusSeconds(5), 1)).isEqualTo(1);
        assertThat(store.liveAgents(Instant.EPOCH)).containsExactly(killedLater, live);
        assertThat(store.expireAgents(start.plusSeconds(5), 10)).isEqualTo(1);
        assertThat(store.expireAgents(start.plusSeconds(5), 10)).isZero();
        assertThat(store.liveAgents(Instant.EPOCH)).containsExactly(live);

        store.heartbeatAgent(killedFirst);
        assertThat(store.liveAgents(Instant.EPOCH)).containsExactly(live, killedFirst);
    }

    @Test
    void removedAgentsAreNoLongerLiveUntilTheirNextHeartbeat() {
        AgentRegistration agent =
                new AgentRegistration("agent-a", 6, "10.0.0.1", 9092, null, Instant.ofEpochMilli(1_700_000_000_000L));
        store.heartbeatAgent(agent);

        assertThat(store.removeAgent("agent-a")).isTrue();
        assertThat(store.removeAgent("agent-a")).isFalse();
        assertThat(store.liveAgents(Instant.EPOCH)).isEmpty();

        store.heartbeatAgent(agent);
        assertThat(store.liveAgents(Instant.EPOCH)).containsExactly(agent);
    }

    @Test
    void agentsAllocateDifferentIdsFromTheLowest() {
        NodeIdLease first = store.allocateNodeId("agent-a", NOW, TTL);
        NodeIdLease second = store.allocateNodeId("agent-b", NOW, TTL);
        NodeIdLease third = store.allocateNodeId("agent-c", NOW, TTL);

        assertThat(List.of(first.nodeId(), second.nodeId(), third.nodeId())).containsExactly(0, 1, 2);
        assertThat(first.agentId()).isEqualTo("agent-a");
        assertThat(first.expiresAt()).isEqualTo(NOW.plus(TTL));
    }

    @Test
    void allocatingAgainRenewsTheAgentsOwnId() {
        store.allocateNodeId("agent-a", NOW, TTL);
        NodeIdLease own = store.allocateNodeId("agent-b", NOW, TTL);

        NodeIdLease again = store.allocateNodeId("agent-b", NOW.plusSeconds(1), TTL);

        assertThat(again.nodeId()).isEqualTo(own.nodeId());
        assertThat(again.epoch()).isEqualTo(own.epoch());
        assertThat(again.expiresAt()).isEqualTo(NOW.plusSeconds(1).plus(TTL));
    }

    @Test
    void aHeldIdIsRefusedNamingItsHolderAndItsRenewalKeepsTheEpoch() {
        NodeIdClaim granted = store.claimNodeId(3, "agent-a", NOW, TTL);
        assertThat(granted).isInstanceOf(NodeIdClaim.Granted.class);
        NodeIdLease lease = ((NodeIdClaim.Granted) granted).lease();

        NodeIdClaim refused = store.claimNodeId(3, "agent-b", NOW.plusSeconds(5), TTL);
        NodeIdClaim renewed = store.claimNodeId(3, "agent-a", NOW.plusSeconds(5), TTL);

        assertThat(refused).isEqualTo(new NodeIdClaim.Held(lease));
        assertThat(renewed)
                .isEqualTo(new NodeIdClaim.Granted(new NodeIdLease(
                        3, "agent-a", lease.epoch(), NOW.plusSeconds(5).plus(TTL))));
        assertThat(store.allocateNodeId("agent-b", NOW.plusSeconds(5), TTL).nodeId())
                .isZero();
    }

    @Test
    void anExpiredHoldersIdIsTakenAgainAtANewEpoch() {
        NodeIdLease dead = store.allocateNodeId("agent-a", NOW, TTL);
        store.allocateNodeId("agent-b", NOW, TTL);
        Instant later = NOW.plus(TTL).plusMillis(1);
        store.claimNodeId(1, "agent-b", later, TTL);

        NodeIdLease reused = store.allocateNodeId("agent-c", later, TTL);

        assertThat(reused.nodeId()).isEqualTo(dead.nodeId());
        assertThat(reused.epoch()).isGreaterThan(dead.epoch());
        assertThat(store.claimNodeId(dead.nodeId(), "agent-a", later, TTL)).isEqualTo(new NodeIdClaim.Held(reused));
    }

    @Test
    void aReleasedIdIsFreeAtOnceAndAStaleReleaseDoesNothing() {
        NodeIdLease lease = store.allocateNodeId("agent-a", NOW, TTL);
        store.releaseNodeId(lease);
        NodeIdLease next = store.allocateNodeId("agent-b", NOW.plusMillis(1), TTL);

        store.releaseNodeId(lease);

        assertThat(next.nodeId()).isEqualTo(lease.nodeId());
        assertThat(store.claimNodeId(lease.nodeId(), "agent-c", NOW.plusMillis(2), TTL))
                .isEqualTo(new NodeIdClaim.Held(next));
    }

    @Test
    void theMembershipHeartbeatRenewsTheIdAndRecordsNothingOnceAnotherAgentHoldsIt() {
        NodeIdLease lease = store.allocateNodeId("agent-a", NOW, TTL);
        Instant beat = NOW.plusSeconds(4);

        NodeIdClaim renewed = store.heartbeatAgent(registration("agent-a", lease.nodeId(), beat), TTL);
        Instant afterPause = beat.plus(TTL).plusSeconds(1);
        NodeIdLease taken = store.allocateNodeId("agent-b", afterPause, TTL);
        NodeIdClaim lost = store.heartbeatAgent(registration("agent-a", lease.nodeId(), afterPause), TTL);

        assertThat(renewed)
                .isEqualTo(new NodeIdClaim.Granted(
                        new NodeIdLease(lease.nodeId(), "agent-a", lease.epoch(), beat.plus(TTL))));
        assertThat(taken.nodeId()).isEqualTo(lease.nodeId());
        assertThat(lost).isEqualTo(new NodeIdClaim.Held(taken));
        assertThat(store.liveAgents(beat.minusSeconds(1)))
                .extracting(AgentRegistration::heartbeatAt)
                .containsExactly(beat);
    }

    @Test
    void agentsAllocatingAtOnceGetDifferentIds() throws Exception {
        int agents = 4;
        CyclicBarrier start = new CyclicBarrier(agents);
        ExecutorService threads = Executors.newFixedThreadPool(agents);
        try {
            List<Future<NodeIdLease>> leases = new ArrayList<>();
            for (int i = 0; i < agents; i++) {
                String agentId = "agent-" + i;
                Callable<NodeIdLease> allocate = () -> {
                    start.await(30, TimeUnit.SECONDS);
                    return store.allocateNodeId(agentId, NOW, TTL);
                };
                leases.add(threads.submit(allocate));
            }
            List<Integer> ids = new ArrayList<>();
            for (Future<NodeIdLease> lease : leases) {
                ids.add(lease.get(60, TimeUnit.SECONDS).nodeId());
            }
            assertThat(ids).containsExactlyInAnyOrder(0, 1, 2, 3);
        } finally {
            threads.shutdownNow();
        }
    }

    private static AgentRegistration registration(String agentId, int nodeId, Instant at) {
        return new AgentRegistration(agentId, nodeId, "127.0.0.1", 9092, null, at);
    }
}
