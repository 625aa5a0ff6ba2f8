package io.floe.agent.cluster;

import io.floe.core.metadata.AgentMembership;
import io.floe.core.metadata.AgentRegistration;
import io.floe.core.metadata.NodeIdClaim;
import io.floe.core.metadata.NodeIdLease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This agent's membership in the cluster: a heartbeat row in the metadata store every
 * {@code interval}, and the cluster view refreshed from the agents whose heartbeat is younger than
 * {@code timeout}. An agent that dies stops heartbeating, and within the timeout the others stop
 * listing it: clients then find its partitions and groups on the survivors. Each heartbeat also
 * renews the agent's node id lease ({@link NodeIds}) in the same transaction. An agent whose lease ran
 * out while it was paused and whose id another agent took has lost its identity: it stops
 * heartbeating and {@link #nodeIdLost()} completes, so the agent can stop. Should two live agents
 * still show one node id (a store without the leases' guarantee), the newest heartbeat wins the id
 * and a warning names both.
 */
public final class Membership implements AutoCloseable {

    /** Kafka's defaults are 2 s heartbeats and a 9 s session; an agent holds no state worth waiting for. */
    public static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

    public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(6);

    private static final Logger LOGGER = LoggerFactory.getLogger(Membership.class);

    private final AgentMembership metadata;
    private final Cluster cluster;
    private final String agentId;
    private final Clock clock;
    private final Duration timeout;
    private final Counter failures;
    private final CompletableFuture<String> nodeIdLost = new CompletableFuture<>();
    private volatile NodeIdLease nodeId;
    private ScheduledFuture<?> beating;

    private Membership(
            AgentMembership metadata,
            Cluster cluster,
            String agentId,
            NodeIdLease nodeId,
            Clock clock,
            Duration timeout,
            MeterRegistry meters) {
        this.metadata = metadata;
        this.cluster = cluster;
        this.agentId = agentId;
        this.nodeId = nodeId;
        this.clock = clock;
        this.timeout = timeout;
        this.failures = Counter.builder("floe.membership.heartbeat.failures")
                .description("Heartbeats that could not reach the metadata store")
                .register(meters);
        Gauge.builder("floe.membership.agents", cluster, c -> c.liveAgents().size())
                .description("Live agents in this agent's view of the cluster")
                .register(meters);
    }

    /**
     * Registers this agent, which holds {@code nodeId} (the id {@code cluster.self()} shows), and
     * heartbeats on {@code scheduler} from then on.
     */
    public static Membership start(
            AgentMembership metadata,
            Cluster cluster,
            String agentId,
            NodeIdLease nodeId,
            Clock clock,
            ScheduledExecutorService scheduler,
            Duration interval,
            Duration timeout,
            MeterRegistry meters) {
        if (nodeId.nodeId() != cluster.self().nodeId() || !nodeId.agentId().equals(agentId)) {
            throw new IllegalArgumentException(
                    "agent " + agentId + " shows node id " + cluster.self().nodeId() + " but holds " + nodeId);
        }
        Membership membership = new Membership(metadata, cluster, agentId, nodeId, clock, timeout, meters);
        membership.beat();
        membership.beating = scheduler.scheduleWithFixedDelay(
                membership::beatQuietly, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return membership;
    }

    /**
     * Completes, with the reason, when another agent took this agent's node id (after this one's lease
     * ran out unrenewed): clients can no longer tell the two apart, so the agent should stop.
     */
    public CompletionStage<String> nodeIdLost() {
        return nodeIdLost;
    }

    private void beat() {
        if (nodeIdLost.isDone()) {
            return;
        }
        Instant now = clock.instant();
        AgentNode self = cluster.self();
        NodeIdClaim claim = metadata.heartbeatAgent(
                new AgentRegistration(agentId, self.nodeId(), self.host(), self.port(), null, now), timeout);
        if (claim instanceof NodeIdClaim.Held held) {
            loseNodeId(held.holder(), now);
            return;
        }
        NodeIdLease renewed = ((NodeIdClaim.Granted) claim).lease();
        if (renewed.epoch() != nodeId.epoch()) {
            LOGGER.warn(
                    "node id lease ran out before this heartbeat renewed it; nobody took it, so this agent keeps it"
                            + " agentId={} nodeId={} expiredAt={} now={}",
                    agentId,
                    self.nodeId(),
                    nodeId.expiresAt(),
                    now);
        }
        nodeId = renewed;
        Map<Integer, AgentRegistration> byNodeId = new HashMap<>();
        for (AgentRegistration agent : metadata.liveAgents(now.minus(timeout))) {
            AgentRegistration other = byNodeId.get(agent.nodeId());
            if (other != null) {
                LOGGER.warn(
                        "two live agents share node id {}: {} at {}:{} and {} at {}:{}; give each its own --node-id",
                        agent.nodeId(),
                        other.agentId(),
                        other.host(),
                        other.port(),
                        agent.agentId(),
                        agent.host(),
                        agent.port());
            }
            if (other == null || agent.heartbeatAt().isAfter(other.heartbeatAt())) {
                byNodeId.put(agent.nodeId(), agent);
            }
        }
        List<AgentNode> live = new ArrayList<>();
        byNodeId.values().forEach(agent -> live.add(new AgentNode(agent.nodeId(), agent.host(), agent.port())));
        cluster.update(live);
    }

    private void loseNodeId(NodeIdLease holder, Instant now) {
        String reason = "agent " + agentId + " lost node id " + holder.nodeId() + " to agent " + holder.agentId()
                + ": its own lease ran out at " + nodeId.expiresAt() + " unrenewed (heartbeat at " + now
                + "), and clients cannot tell two agents with one id apart; restart this agent to get a new id";
        LOGGER.error(reason);
        if (beating != null) {
            beating.cancel(false);
        }
        nodeIdLost.complete(reason);
    }

    private void beatQuietly() {
        try {
            beat();
        } catch (RuntimeException e) {
            failures.increment();
            LOGGER.warn("heartbeat failed agentId={}: {}", agentId, e.toString());
        }
    }

    /**
     * Stops heartbeating, leaves the membership and gives up the node id, so the others take over at
     * once and a restarted agent can take the id again.
     */
    @Override
    public void close() {
        if (beating != null) {
            beating.cancel(false);
        }
        try {
            metadata.removeAgent(agentId);
            if (!nodeIdLost.isDone()) {
                metadata.releaseNodeId(nodeId);
            }
        } catch (RuntimeException e) {
            LOGGER.warn("could not leave the membership agentId={}: {}", agentId, e.toString());
        }
    }
}
