package io.floe.agent.cluster;

import io.floe.core.log.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live agents and who serves what. Any agent can append to any partition (the metadata store
 * orders commits), so leadership is not needed for correctness: it spreads partitions and groups
 * over the agents so that each serves, caches and coordinates its share. Leaders and coordinators
 * come from rendezvous hashing over the live node ids: when an agent joins or leaves, only the
 * partitions and groups it gains or loses move. Until membership reports (and with one agent) this
 * agent is the whole cluster. Thread-safe.
 */
public final class Cluster {

    private static final Logger LOGGER = LoggerFactory.getLogger(Cluster.class);

    private final String clusterId;
    private final AgentNode self;
    private volatile List<AgentNode> live;

    public Cluster(String clusterId, AgentNode self) {
        this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
        this.self = Objects.requireNonNull(self, "self");
        this.live = List.of(self);
    }

    public String clusterId() {
        return clusterId;
    }

    public AgentNode self() {
        return self;
    }

    /** The live agents, ordered by node id; this agent is always among them. */
    public List<AgentNode> liveAgents() {
        return live;
    }

    /** Replaces the view of the live agents (from membership); this agent stays in it whatever the store says. */
    public void update(List<AgentNode> fromStore) {
        List<AgentNode> next = new ArrayList<>();
        for (AgentNode node : fromStore) {
            if (node.nodeId() != self.nodeId()) {
                next.add(node);
            }
        }
        next.add(self);
        next.sort(Comparator.comparingInt(AgentNode::nodeId));
        List<AgentNode> view = List.copyOf(next);
        if (!view.equals(live)) {
            LOGGER.info("cluster membership changed clusterId={} live={}", clusterId, view);
            live = view;
        }
    }

    /** The agent that serves {@code topicPartition} (leads it, in Kafka's terms). */
    public AgentNode leaderOf(TopicPartition topicPartition) {
        return rendezvous("partition:" + topicPartition.topic() + ":" + topicPartition.partition());
    }

    /** The agent that coordinates a consumer group or another coordinator key. */
    public AgentNode coordinatorOf(String key) {
        return rendezvous("group:" + key);
    }

    /**
     * The agent that coordinates a transactional id: any agent can serve any transactional id (its
     * state is in the store), so this only spreads the load and names the agent that aborts its
     * expired transactions.
     */
    public AgentNode transactionCoordinatorOf(String transactionalId) {
        return rendezvous("transaction:" + transactionalId);
    }

    public boolean isTransactionCoordinatorOf(String transactionalId) {
        return transactionCoordinatorOf(transactionalId).nodeId() == self.nodeId();
    }

    public boolean isLeaderOf(TopicPartition topicPartition) {
        return leaderOf(topicPartition).nodeId() == self.nodeId();
    }

    public boolean isCoordinatorOf(String key) {
        return coordinatorOf(key).nodeId() == self.nodeId();
    }

    /** The agent clients should treat as the KRaft controller (there is none; any agent can answer): the lowest id. */
    public AgentNode controller() {
        return live.get(0);
    }

    private AgentNode rendezvous(String key) {
        List<AgentNode> nodes = live;
        long keyHash = fnv1a(key);
        AgentNode best = nodes.get(0);
        long bestScore = Long.MIN_VALUE;
        for (AgentNode node : nodes) {
            long score = mix(keyHash ^ mix(node.nodeId() + 0x9E3779B97F4A7C15L));
            if (score > bestScore || (score == bestScore && node.nodeId() < best.nodeId())) {
                best = node;
                bestScore = score;
            }
        }
        return best;
    }

    private static long fnv1a(String key) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    /** SplitMix64's finalizer: spreads close inputs over the whole range. */
    private static long mix(long value) {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
