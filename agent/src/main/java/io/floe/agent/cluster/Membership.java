package io.floe.agent.cluster;

import io.floe.core.metadata.AgentRegistration;
import io.floe.core.metadata.MetadataStore;
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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This agent's membership in the cluster: a heartbeat row in the metadata store every
 * {@code interval}, and the cluster view refreshed from the agents whose heartbeat is younger than
 * {@code timeout}. An agent that dies stops heartbeating, and within the timeout the others stop
 * listing it: clients then find its partitions and groups on the survivors. Two live agents with one
 * node id are a misconfiguration (or a restart within the timeout): the newest heartbeat wins the id,
 * and a warning names both.
 */
public final class Membership implements AutoCloseable {

    /** Kafka's defaults are 2 s heartbeats and a 9 s session; an agent holds no state worth waiting for. */
    public static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(6);

    private static final Logger LOGGER = LoggerFactory.getLogger(Membership.class);

    private final MetadataStore metadata;
    private final Cluster cluster;
    private final String agentId;
    private final Clock clock;
    private final Duration timeout;
    private final Counter failures;
    private ScheduledFuture<?> beating;

    private Membership(MetadataStore metadata, Cluster cluster, String agentId, Clock clock, Duration timeout,
            MeterRegistry meters) {
        this.metadata = metadata;
        this.cluster = cluster;
        this.agentId = agentId;
        this.clock = clock;
        this.timeout = timeout;
        this.failures = Counter.builder("floe.membership.heartbeat.failures")
                .description("Heartbeats that could not reach the metadata store").register(meters);
        Gauge.builder("floe.membership.agents", cluster, c -> c.liveAgents().size())
                .description("Live agents in this agent's view of the cluster").register(meters);
    }

    /** Registers this agent and heartbeats on {@code scheduler} from then on. */
    public static Membership start(MetadataStore metadata, Cluster cluster, String agentId, Clock clock,
            ScheduledExecutorService scheduler, Duration interval, Duration timeout, MeterRegistry meters) {
        Membership membership = new Membership(metadata, cluster, agentId, clock, timeout, meters);
        membership.beat();
        membership.beating = scheduler.scheduleWithFixedDelay(membership::beatQuietly, interval.toMillis(),
                interval.toMillis(), TimeUnit.MILLISECONDS);
        return membership;
    }

    private void beat() {
        Instant now = clock.instant();
        AgentNode self = cluster.self();
        metadata.heartbeatAgent(new AgentRegistration(agentId, self.nodeId(), self.host(), self.port(), null, now));
        Map<Integer, AgentRegistration> byNodeId = new HashMap<>();
        for (AgentRegistration agent : metadata.liveAgents(now.minus(timeout))) {
            AgentRegistration other = byNodeId.get(agent.nodeId());
            if (other != null) {
                LOGGER.warn("two live agents share node id {}: {} at {}:{} and {} at {}:{}; give each its own --node-id",
                        agent.nodeId(), other.agentId(), other.host(), other.port(), agent.agentId(), agent.host(),
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

    private void beatQuietly() {
        try {
            beat();
        } catch (RuntimeException e) {
            failures.increment();
            LOGGER.warn("heartbeat failed agentId={}: {}", agentId, e.toString());
        }
    }

    /** Stops heartbeating and leaves the membership, so the others take over at once. */
    @Override
    public void close() {
        if (beating != null) {
            beating.cancel(false);
        }
        try {
            metadata.removeAgent(agentId);
        } catch (RuntimeException e) {
            LOGGER.warn("could not leave the membership agentId={}: {}", agentId, e.toString());
        }
    }
}
