package io.floe.simulation;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.ObjectStore;
import io.floe.maintenance.Maintenance;
import io.floe.maintenance.MaintenanceConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;

/**
 * One incarnation of an agent process: the real {@link Agent} and {@link Maintenance}, assembled on
 * the simulation's executors and on this process's faulty views of the shared stores. It dies by
 * {@link Node#kill()} (never a graceful close: nothing it buffered is flushed), and a new incarnation
 * with a new agent id takes its place.
 */
final class SimAgent {

    private final Node node;
    private final Agent agent;
    private final Maintenance maintenance;

    private SimAgent(Node node, Agent agent, Maintenance maintenance) {
        this.node = node;
        this.agent = agent;
        this.maintenance = maintenance;
    }

    /**
     * Starts incarnation {@code incarnation} of agent {@code nodeId}. Store calls made while starting
     * may fail or kill it: then it throws (a {@link RuntimeException} or {@link SimulatedCrash}).
     */
    static SimAgent start(World world, Faults faults, int nodeId, int incarnation, MetadataStore metadata,
            ObjectStore objects, SimExecutor network, Duration flushInterval, MaintenanceConfig maintenanceConfig) {
        String agentId = "agent-" + nodeId + "." + incarnation;
        Node node = new Node(agentId, true);
        StoreCalls calls = new StoreCalls(world, node, faults);
        MetadataStore faultyMetadata = FaultyMetadataStore.wrap(metadata, calls);
        ObjectStore faultyObjects = new FaultyObjectStore(objects, calls, network);
        SimConcurrency concurrency = new SimConcurrency(world, node);
        AgentConfig config = AgentConfig.defaults().withIdentity(nodeId, agentId)
                .withAdvertised("127.0.0.1", 9000 + nodeId)
                .withFlush(flushInterval, 16 * 1024)
                .withCacheBytesMax(world.random().nextBoolean() ? 0 : 1 << 20)
                .withAutoCreateTopics(false);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Agent agent = Agent.start(config, faultyMetadata, faultyObjects, meters, world.clock(),
                GroupCoordinatorConfig.defaults(), concurrency);
        Maintenance maintenance = Maintenance.start(maintenanceConfig, agentId, faultyMetadata, faultyObjects,
                agent.topics().configs(), world.clock(), meters, concurrency);
        return new SimAgent(node, agent, maintenance);
    }

    Node node() {
        return node;
    }

    Agent agent() {
        return agent;
    }

    boolean alive() {
        return node.alive();
    }

    void kill() {
        node.kill();
    }

    @Override
    public String toString() {
        return node.name();
    }
}
