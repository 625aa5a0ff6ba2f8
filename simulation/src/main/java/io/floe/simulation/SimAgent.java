package io.floe.simulation;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.ObjectStore;
import io.floe.maintenance.Maintenance;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.MaintenanceMetadata;
import io.floe.tableflow.Tableflow;
import io.floe.tableflow.TableflowConfig;
import io.floe.tableflow.TableflowMetadata;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.table.TableCatalog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One incarnation of an agent process: the real {@link Agent} and {@link Maintenance}, assembled on
 * the simulation's executors and on this process's faulty views of the shared stores. It dies by
 * {@link Node#kill()} (never a graceful close: nothing it buffered is flushed), and a new incarnation
 * with a new agent id takes its place.
 */
final class SimAgent {

    /** Threads of the executor that runs requests waiting on the store. */
    private static final int BLOCKING_THREADS = 8;

    /** Where table files live, as Iceberg sees them: a name for the memory store's keys. */
    static final String LOCATION_ROOT = "file:/floe-simulation";

    /** Tableflow's share of an agent: where its catalog lives and its spool; null when the run has no table. */
    record TableflowSetup(String catalogUrl, Path spool) {}

    private final Node node;
    private final Agent agent;
    private final TableCatalog tables;
    private final Tableflow tableJobs;
    private final SimExecutor listener;
    private final SimExecutor blocking;

    private SimAgent(
            Node node,
            Agent agent,
            TableCatalog tables,
            Tableflow tableJobs,
            SimExecutor listener,
            SimExecutor blocking) {
        this.node = node;
        this.agent = agent;
        this.tables = tables;
        this.tableJobs = tableJobs;
        this.listener = listener;
        this.blocking = blocking;
    }

    /**
     * Starts incarnation {@code incarnation} of agent {@code nodeId}. Store calls made while starting
     * may fail or kill it: then it throws (a {@link RuntimeException} or {@link SimulatedCrash}).
     */
    static SimAgent start(
            World world,
            Faults faults,
            int nodeId,
            int incarnation,
            MetadataStore metadata,
            ObjectStore objects,
            SimExecutor network,
            Duration flushInterval,
            MaintenanceConfig maintenanceConfig,
            TableflowSetup tableflow) {
        String agentId = "agent-" + nodeId + "." + incarnation;
        Node node = new Node(agentId, true);
        StoreCalls calls = new StoreCalls(world, node, faults);
        MetadataStore faultyMetadata = FaultyMetadataStore.wrap(metadata, calls);
        ObjectStore faultyObjects = new FaultyObjectStore(objects, calls, network);
        try {
            SimConcurrency concurrency = new SimConcurrency(world, node);
            AgentConfig config = AgentConfig.defaults()
                    .withIdentity(nodeId, agentId)
                    .withAdvertised("127.0.0.1", 9000 + nodeId)
                    .withFlush(flushInterval, 16 * 1024)
                    .withCacheBytesMax(world.random().nextBoolean() ? 0 : 1 << 20)
                    .withAutoCreateTopics(false);
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            Agent agent = Agent.start(
                    config,
                    AgentMetadata.of(faultyMetadata),
                    faultyObjects,
                    meters,
                    world.clock(),
                    GroupCoordinatorConfig.defaults(),
                    concurrency);
            Maintenance.start(
                    maintenanceConfig,
                    agentId,
                    MaintenanceMetadata.of(faultyMetadata),
                    faultyObjects,
                    agent.topics().configs(),
                    world.clock(),
                    meters,
                    concurrency);
            TableCatalog tables = null;
            Tableflow tableJobs = null;
            if (tableflow != null) {
                tables = catalog(tableflow.catalogUrl(), faultyObjects, tableflow.spool());
                tableJobs = Tableflow.start(
                        TableflowConfig.defaults(tableflow.spool())
                                .withPollInterval(Duration.ofMillis(500))
                                .withLeaseTtl(Duration.ofSeconds(10)),
                        agentId,
                        TableflowMetadata.of(faultyMetadata),
                        faultyObjects,
                        tables,
                        world.clock(),
                        meters,
                        concurrency);
            }
            return new SimAgent(
                    node,
                    agent,
                    tables,
                    tableJobs,
                    new SimExecutor(world, node, "listener", 1),
                    new SimExecutor(world, node, "blocking", BLOCKING_THREADS));
        } catch (RuntimeException failedToStart) {
            // A process whose start failed exits (the floe command closes what it started): nothing it
            // scheduled before the failure may run on, as a second process of the same agent would.
            node.kill();
            throw failedToStart;
        }
    }

    /** Iceberg's JDBC catalog in the run's metadata database, its files in {@code objects}. */
    static TableCatalog catalog(String catalogUrl, ObjectStore objects, Path spool) {
        ObjectLocations locations = new ObjectLocations(LOCATION_ROOT);
        ObjectStoreFileIO io = new ObjectStoreFileIO(objects, locations, spool);
        return new TableCatalog(
                IcebergCatalogs.jdbc(catalogUrl, null, null, locations.root() + "/tables", io),
                TableflowConfig.DEFAULT_NAMESPACE);
    }

    /** Closes what outlives the process in this JVM (the catalog's connections). */
    void release() {
        if (tables != null) {
            tables.close();
        }
    }

    Node node() {
        return node;
    }

    Agent agent() {
        return agent;
    }

    /**
     * The agent's network thread, where requests arrive: a fetch it can answer from memory and local
     * files is answered right there, store calls (and their faults) included, so it must be the agent's.
     */
    SimExecutor listener() {
        return listener;
    }

    /**
     * Stops the agent's table jobs, on its own executor, as an operator who turned Tableflow off on the
     * agent and restarted it would (its leases released, its tables as they are).
     */
    void stopTableflow() {
        if (tableJobs != null) {
            blocking.execute(tableJobs::close);
        }
    }

    /** The agent's executor of requests that wait on the store (group and transaction APIs), as the Kafka layer's. */
    SimExecutor blocking() {
        return blocking;
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
