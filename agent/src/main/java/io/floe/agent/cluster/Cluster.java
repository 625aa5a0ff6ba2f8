package io.floe.agent.cluster;

import io.floe.core.log.TopicPartition;
import java.util.List;

/**
 * The live agents and who leads which partition. With one agent, it leads everything; membership
 * and rendezvous-hash leadership over many agents come with the shared metadata store.
 */
public final class Cluster {

    private final String clusterId;
    private final AgentNode self;

    public Cluster(String clusterId, AgentNode self) {
        this.clusterId = clusterId;
        this.self = self;
    }

    public String clusterId() {
        return clusterId;
    }

    public AgentNode self() {
        return self;
    }

    /** The live agents, ordered by node id. */
    public List<AgentNode> liveAgents() {
        return List.of(self);
    }

    /** The agent that serves {@code topicPartition} (leads it, in Kafka's terms). */
    public AgentNode leaderOf(TopicPartition topicPartition) {
        return self;
    }

    /** The agent that coordinates a consumer group or producer id key. */
    public AgentNode coordinatorOf(String key) {
        return self;
    }

    /** The agent clients should treat as the KRaft controller (there is none; any agent can answer). */
    public AgentNode controller() {
        return self;
    }
}
