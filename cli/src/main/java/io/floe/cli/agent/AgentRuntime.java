package io.floe.cli.agent;

import io.floe.agent.Agent;
import io.floe.agent.AgentMetadata;
import io.floe.agent.cluster.NodeIdHeldException;
import io.floe.agent.cluster.NodeIds;
import io.floe.cli.http.HealthAndMetrics;
import io.floe.cli.http.HttpEndpoint;
import io.floe.cli.http.RouteTable;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.metadata.AgentMembership;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.NodeIdClaim;
import io.floe.core.metadata.NodeIdLease;
import io.floe.core.object.ObjectStore;
import io.floe.kafka.KafkaServer;
import io.floe.kafka.KafkaServerConfig;
import io.floe.maintenance.Maintenance;
import io.floe.maintenance.MaintenanceMetadata;
import io.floe.tableflow.Tableflow;
import io.floe.tableflow.TableflowMetadata;
import io.floe.tableflow.changes.ChangeLimits;
import io.floe.tableflow.changes.ChangesEndpoint;
import io.floe.tableflow.changes.stream.ChangeStreams;
import io.floe.tableflow.rest.RestCatalogHandler;
import io.floe.tableflow.table.SchemaChange;
import io.floe.tableflow.table.TableCatalog;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: one running agent with everything around it, wired by hand. Starts, in
 * order, the metrics registry, the HTTP endpoint, the metadata store, the object store, the agent,
 * the maintenance jobs and Tableflow with its Iceberg REST catalog and change queries (unless turned off) and the Kafka
 * listener; {@link #close()} stops them in reverse, so the listener finishes its in-flight requests
 * first, the jobs stop and give up their leases, the agent then flushes and commits what it
 * buffered, and the stores close only after that. Thread-safe; closing twice is harmless.
 */
final class AgentRuntime implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(AgentRuntime.class);
    /** Room in a request frame for the headers around one largest batch. */
    private static final int FRAME_OVERHEAD_BYTES = 1024 * 1024;
    /** Where the HTTP endpoint serves the Iceberg REST catalog of Tableflow's tables. */
    static final String ICEBERG_PATH = "/iceberg";
    /** Waiting for a crashed predecessor's node id lease: past its end, so the store sees it ended. */
    private static final Duration NODE_ID_WAIT_MARGIN = Duration.ofMillis(200);

    private final Stages stages;
    private final KafkaServer kafka;
    private final HttpEndpoint http;
    private final AtomicBoolean serving;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stoppedCleanly;
    private volatile boolean lostNodeId;

    private AgentRuntime(Stages stages, KafkaServer kafka, HttpEndpoint http, AtomicBoolean serving) {
        this.stages = stages;
        this.kafka = kafka;
        this.http = http;
        this.serving = serving;
    }

    /**
     * Starts an agent with {@code settings}. When a part fails to start, the parts started before it
     * are stopped again and an {@link AgentStartException} says which part failed and why.
     */
    public static AgentRuntime start(AgentSettings settings, Clock clock) {
        Stages stages = new Stages();
        AtomicBoolean serving = new AtomicBoolean();
        PrometheusMeterRegistry registry =
                stages.start("metrics registry", AgentRuntime::registry, PrometheusMeterRegistry::close);
        stages.start("JVM metrics", () -> bindJvmMetrics(registry), JvmGcMetrics::close);
        // Mounted now, served once the Iceberg catalog exists; until then it answers 503.
        RestCatalogHandler icebergRest = new RestCatalogHandler(ICEBERG_PATH);
        ChangesEndpoint changes = new ChangesEndpoint(ChangeLimits.DEFAULTS.queriesMax());
        HttpEndpoint http = stages.start(
                "HTTP endpoint on " + settings.httpListen(),
                () -> HttpEndpoint.start(
                        settings.httpListen().host(),
                        settings.httpListen().port(),
                        HealthAndMetrics.addTo(new RouteTable(), registry, serving::get)
                                .mount(ICEBERG_PATH, icebergRest)
                                .mount(ChangesEndpoint.MOUNT, changes)),
                HttpEndpoint::close);
        MetadataStore metadata = stages.start(
                "metadata store " + Backends.redact(settings.metadataUrl()),
                () -> Backends.metadataStore(settings.metadataUrl(), clock),
                MetadataStore::close);
        ObjectStore objects = stages.start(
                "object store " + settings.objectsUrl(),
                () -> Backends.objectStore(settings.objectsUrl(), settings.s3(), clock),
                ObjectStore::close);
        String agentId = agentId();
        if (settings.nodeId() != NodeIds.ALLOCATED) {
            stages.start(
                    "node id " + settings.nodeId(),
                    () -> awaitNodeId(metadata, settings.nodeId(), agentId, clock),
                    lease -> {});
        }
        Agent agent = stages.start(
                "agent",
                () -> Agent.start(settings.agentConfig(agentId), AgentMetadata.of(metadata), objects, registry, clock),
                Agent::close);
        if (settings.maintenance()) {
            // The agent's metered store: the jobs' requests count in floe_objectstore_* with the data path's.
            stages.start(
                    "maintenance",
                    () -> Maintenance.start(
                            settings.maintenanceConfig(),
                            agentId,
                            MaintenanceMetadata.of(metadata),
                            agent.objects(),
                            agent.topics().configs(),
                            clock,
                            registry),
                    Maintenance::close);
        } else {
            LOGGER.info("Maintenance jobs are off: this agent runs no compaction, retention or cleanup");
        }
        agent.topics().configs().addCheck(Tableflow::validate);
        // Whether or not this agent runs Tableflow, it expires the offsets of the groups routed to it: a
        // change topic's progress must outlive any quiet spell of its stream.
        agent.groups().retainOffsetsOf(ChangeStreams.progressGroups(metadata));
        // Known once the listener is bound (it starts last); the change topics publish through it.
        AtomicReference<HostPort> kafkaListener = new AtomicReference<>();
        if (settings.tableflow()) {
            TableCatalog tables = stages.start(
                    "Iceberg catalog", () -> TableflowSetup.catalog(settings, agent.objects()), TableCatalog::close);
            agent.topics().configs().addChangeCheck(new SchemaChange(tables));
            stages.start(
                    "Iceberg REST catalog at " + ICEBERG_PATH,
                    () -> TableflowSetup.serveRestCatalog(icebergRest, settings, tables),
                    RestCatalogHandler::stop);
            stages.start(
                    "change queries at " + ChangesEndpoint.MOUNT,
                    () -> TableflowSetup.serveChanges(changes, tables, metadata, agent.objects(), clock, registry),
                    ChangesEndpoint::stop);
            ChangeStreams changeTopics = stages.start(
                    "change topics",
                    () -> TableflowSetup.changeStreams(
                            settings,
                            tables,
                            metadata,
                            agent.objects(),
                            () -> Optional.ofNullable(kafkaListener.get()),
                            clock,
                            registry),
                    ChangeStreams::close);
            stages.start(
                    "tableflow",
                    () -> Tableflow.start(
                            TableflowSetup.config(settings),
                            agentId,
                            TableflowMetadata.of(metadata),
                            agent.objects(),
                            tables,
                            clock,
                            registry,
                            Concurrency.threads(),
                            changeTopics),
                    Tableflow::close);
        } else {
            LOGGER.info("Tableflow is off: this agent materializes no tables");
            agent.topics().configs().addChangeCheck(new SchemaChange(null));
            icebergRest.off("this agent runs with --tableflow=false, so it serves no Iceberg catalog;"
                    + " ask an agent that runs Tableflow");
            changes.off("this agent runs with --tableflow=false, so it answers no change queries;"
                    + " ask an agent that runs Tableflow");
        }
        KafkaServer kafka = stages.start(
                "Kafka listener on " + settings.listen(),
                () -> KafkaServer.start(kafkaConfig(settings), agent),
                server -> {
                    // Answer parked JoinGroup/SyncGroup requests first, so the listener's drain is quick.
                    agent.groups().close();
                    server.close();
                });
        kafkaListener.set(new HostPort(settings.listen().host(), kafka.port()));
        serving.set(true);
        AgentRuntime runtime = new AgentRuntime(stages, kafka, http, serving);
        agent.nodeIdLost().thenAccept(reason -> runtime.stopAfterLosingNodeId());
        LOGGER.info(
                "Floe agent started kafka={} advertised={} http={} metadata={} objects={} config=[{}]",
                new HostPort(settings.listen().host(), kafka.port()),
                settings.advertise(),
                new HostPort(settings.httpListen().host(), http.port()),
                metadata.describe(),
                objects.describe(),
                settings.describe());
        return runtime;
    }

    /**
     * The lease on a given node id, waiting once for it to run out when another agent holds it: an
     * agent restarted at once after a crash finds its earlier process's lease still running, and that
     * lease is not renewed any more. A lease renewed meanwhile belongs to a live agent, so the start
     * fails with a line naming it.
     */
    private static NodeIdLease awaitNodeId(AgentMembership metadata, int nodeId, String agentId, Clock clock) {
        NodeIdClaim claim = metadata.claimNodeId(nodeId, agentId, clock.instant(), NodeIds.LEASE_TTL);
        if (claim instanceof NodeIdClaim.Held held) {
            Duration wait =
                    Duration.between(clock.instant(), held.holder().expiresAt()).plus(NODE_ID_WAIT_MARGIN);
            if (wait.compareTo(NodeIds.LEASE_TTL.plus(NODE_ID_WAIT_MARGIN)) > 0) {
                throw new NodeIdHeldException(agentId, held.holder());
            }
            LOGGER.info(
                    "Node id is held; waiting for its lease to run out nodeId={} holder={} expiresAt={} waitMs={}",
                    nodeId,
                    held.holder().agentId(),
                    held.holder().expiresAt(),
                    wait.toMillis());
            if (!wait.isNegative()) {
                CompletableFuture.runAsync(
                                () -> {}, CompletableFuture.delayedExecutor(wait.toMillis(), TimeUnit.MILLISECONDS))
                        .join();
            }
            claim = metadata.claimNodeId(nodeId, agentId, clock.instant(), NodeIds.LEASE_TTL);
        }
        if (claim instanceof NodeIdClaim.Held held) {
            throw new NodeIdHeldException(agentId, held.holder());
        }
        return ((NodeIdClaim.Granted) claim).lease();
    }

    /** Another agent took this one's node id (it was paused past its lease): stop, and exit with a failure. */
    private void stopAfterLosingNodeId() {
        lostNodeId = true;
        Thread stopper = new Thread(this::stop, "floe-stop-lost-node-id");
        stopper.setDaemon(false);
        stopper.start();
    }

    /** True when the agent stopped because another agent took its node id. */
    public boolean lostNodeId() {
        return lostNodeId;
    }

    /** The port the Kafka listener is bound to. */
    public int kafkaPort() {
        return kafka.port();
    }

    /** The port the HTTP endpoint is bound to. */
    public int httpPort() {
        return http.port();
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    /**
     * Stops every part in reverse start order and logs each step. Returns false when a part failed
     * to stop (the others are stopped anyway). A second call waits for the first to finish.
     */
    public boolean stop() {
        if (!stopping.compareAndSet(false, true)) {
            awaitStoppedUninterruptibly();
            return stoppedCleanly;
        }
        LOGGER.info("Floe agent stopping");
        serving.set(false);
        stoppedCleanly = stages.stopAll();
        LOGGER.info("Floe agent stopped clean={}", stoppedCleanly);
        stopped.countDown();
        return stoppedCleanly;
    }

    @Override
    public void close() {
        stop();
    }

    private void awaitStoppedUninterruptibly() {
        boolean interrupted = false;
        while (true) {
            try {
                stopped.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static PrometheusMeterRegistry registry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    /** Binds the JVM and process meters; the returned GC binder holds listeners to close. */
    private static JvmGcMetrics bindJvmMetrics(PrometheusMeterRegistry registry) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        return gc;
    }

    /**
     * Kafka's defaults, on the configured listener. A frame must hold a whole produce request, so it
     * grows with a max-message-bytes above the default frame limit.
     */
    private static KafkaServerConfig kafkaConfig(AgentSettings settings) {
        KafkaServerConfig config = KafkaServerConfig.defaults()
                .withListener(settings.listen().host(), settings.listen().port());
        long frameBytesNeeded = (long) settings.maxMessageBytes() + FRAME_OVERHEAD_BYTES;
        if (frameBytesNeeded > config.maxFrameBytes()) {
            config = config.withMaxFrameBytes((int) Math.min(Integer.MAX_VALUE, frameBytesNeeded));
        }
        return config;
    }

    /**
     * Unique per process: the process id for people reading logs, and a random part because process
     * ids repeat across hosts and containers. Recorded with the agent's uploads, so an orphan names
     * its writer, and the holder of its node id, coordinator and maintenance leases. The node id is
     * no part of it: the id is allocated under this name.
     */
    private static String agentId() {
        return "agent-" + ProcessHandle.current().pid() + "-"
                + Concurrency.threads().randomUuid().toString().substring(0, 8);
    }
}
