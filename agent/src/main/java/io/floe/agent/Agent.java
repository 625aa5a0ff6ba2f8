package io.floe.agent;

import io.floe.agent.cache.ObjectCache;
import io.floe.agent.cluster.AgentNode;
import io.floe.agent.cluster.Cluster;
import io.floe.agent.cluster.Membership;
import io.floe.agent.cluster.NodeIds;
import io.floe.agent.fetch.FetchService;
import io.floe.agent.fetch.OffsetLookup;
import io.floe.agent.fetch.PartitionLogs;
import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.agent.metering.MeteredObjectStore;
import io.floe.agent.produce.ProducePipeline;
import io.floe.agent.topic.Topics;
import io.floe.agent.transaction.MarkerListener;
import io.floe.agent.transaction.StableOffsetLag;
import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.config.TopicConfigs;
import io.floe.core.metadata.NodeIdLease;
import io.floe.core.object.ObjectStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stateless agent's data path, assembled: topics, the produce pipeline, the fetch path, the
 * consumer group and transaction coordinators and the cluster view. The Kafka protocol layer drives it; the CLI builds it. Everything the agent keeps
 * in memory can be rebuilt from the two stores.
 */
public final class Agent implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(Agent.class);

    private final AgentConfig config;
    private final AgentMetadata metadata;
    private final ObjectStore objects;
    private final MeterRegistry meters;
    private final Clock clock;
    /** Timers that gate answers: flush seals, long-poll ends, group timeouts. Never waits on a store. */
    private final ScheduledExecutorService scheduler;
    /**
     * Periodic work that waits on the metadata store (membership heartbeats, topic refresh): on its own
     * thread, so a heartbeat's commit never delays a flush's seal behind it.
     */
    private final ScheduledExecutorService housekeeping;

    private final Cluster cluster;
    private final Topics topics;
    private final PartitionLogs logs;
    private final ObjectCache cache;
    private final ProducePipeline produce;
    private final FetchService fetch;
    private final OffsetLookup offsets;
    private final GroupCoordinator groups;
    private final TransactionCoordinator transactions;
    private final Membership membership;

    private Agent(
            AgentConfig config,
            AgentMetadata metadata,
            ObjectStore objects,
            MeterRegistry meters,
            Clock clock,
            GroupCoordinatorConfig groupConfig,
            Concurrency sharedConcurrency) {
        // Before anything else: an agent refused its id must not have started anything.
        NodeIdLease nodeId = NodeIds.obtain(metadata.membership(), config.nodeId(), config.agentId(), clock);
        this.config = config.withIdentity(nodeId.nodeId(), config.agentId());
        OwnedExecutors concurrency = new OwnedExecutors(sharedConcurrency);
        try {
            this.metadata = metadata;
            this.objects = new MeteredObjectStore(objects, meters, concurrency::nanoTime);
            this.meters = meters;
            this.clock = clock;
            this.scheduler = concurrency.scheduler("floe-scheduler");
            this.housekeeping = concurrency.scheduler("floe-housekeeping");
            this.cluster = new Cluster(
                    config.clusterId(),
                    new AgentNode(nodeId.nodeId(), config.advertisedHost(), config.advertisedPort()));
            TopicConfigs topicConfigs = new TopicConfigs(
                    Map.of(TopicConfigs.MAX_MESSAGE_BYTES, Integer.toString(config.maxMessageBytes())));
            this.topics =
                    new Topics(metadata.topics(), topicConfigs, config.autoCreateTopics(), config.defaultPartitions());
            this.cache = new ObjectCache(config.cacheBytesMax(), meters);
            this.logs = new PartitionLogs(metadata.reads(), metadata.embedded());
            Gauge.builder("floe.fetch.index.batches", logs, PartitionLogs::indexedBatches)
                    .description(
                            "Committed batches the in-memory indexes point at (fetches of them ask the store no rows)")
                    .register(meters);
            this.topics.onDeleted(logs::forgetTopic);
            this.fetch =
                    new FetchService(this.config, logs, this.objects, cache, cluster, scheduler, concurrency, meters);
            this.produce = new ProducePipeline(
                    this.config,
                    metadata.appends(),
                    this.objects,
                    cache,
                    topics,
                    clock,
                    scheduler,
                    concurrency,
                    meters,
                    fetch::onCommitted);
            this.offsets = new OffsetLookup(logs, metadata.reads(), metadata.retention(), this.objects, cache);
            this.groups = GroupCoordinator.start(
                    groupConfig,
                    metadata.offsets(),
                    metadata.leases(),
                    scheduler,
                    clock,
                    meters,
                    concurrency,
                    config.agentId(),
                    cluster::isCoordinatorOf);
            this.topics.onDeleted(groups::onTopicDeleted);
            // Markers go to the fetch path's views at once: a commit marker moves the last stable offset read_committed
            // fetches wait for.
            this.transactions = new TransactionCoordinator(
                    metadata.transactions(),
                    clock,
                    config.transactionMaxTimeout(),
                    TransactionCoordinator.TIMEOUT_CHECK_INTERVAL,
                    MarkerListener.of(fetch::onMarkers, fetch::onMarkersMayHaveBeenWritten),
                    cluster::isTransactionCoordinatorOf,
                    meters);
            // On the housekeeping thread: each round waits on the store, which the scheduler's timers must not.
            transactions.start(housekeeping);
            StableOffsetLag stableOffsetLag = new StableOffsetLag(metadata.reads(), cluster::isLeaderOf, meters);
            long lagIntervalMs = TransactionCoordinator.TIMEOUT_CHECK_INTERVAL.toMillis();
            housekeeping.scheduleWithFixedDelay(
                    stableOffsetLag::measure, lagIntervalMs, lagIntervalMs, TimeUnit.MILLISECONDS);
            housekeeping.scheduleWithFixedDelay(
                    this::refreshTopics, TOPIC_REFRESH.toMillis(), TOPIC_REFRESH.toMillis(), TimeUnit.MILLISECONDS);
            // Last: a start that failed before this point leaves no heartbeat renewing the node id it claimed.
            this.membership = Membership.start(
                    metadata.membership(),
                    cluster,
                    config.agentId(),
                    nodeId,
                    clock,
                    housekeeping,
                    Membership.HEARTBEAT_INTERVAL,
                    Membership.HEARTBEAT_TIMEOUT,
                    meters);
        } catch (RuntimeException failedToStart) {
            concurrency.shutdownNow();
            throw failedToStart;
        }
    }

    /** Topics changed through other agents reach this one's cache within this long. */
    private static final Duration TOPIC_REFRESH = Duration.ofSeconds(5);

    private void refreshTopics() {
        try {
            topics.refresh();
        } catch (RuntimeException e) {
            LOGGER.warn("cannot refresh topics from the metadata store: {}", e.toString());
        }
    }

    /** Assembles an agent on the given stores. The caller keeps ownership of the stores and the registry. */
    public static Agent start(
            AgentConfig config, AgentMetadata metadata, ObjectStore objects, MeterRegistry meters, Clock clock) {
        return start(config, metadata, objects, meters, clock, GroupCoordinatorConfig.defaults());
    }

    /** As {@link #start(AgentConfig, AgentMetadata, ObjectStore, MeterRegistry, Clock)}, with group coordinator settings. */
    public static Agent start(
            AgentConfig config,
            AgentMetadata metadata,
            ObjectStore objects,
            MeterRegistry meters,
            Clock clock,
            GroupCoordinatorConfig groupConfig) {
        return start(config, metadata, objects, meters, clock, groupConfig, Concurrency.threads());
    }

    /**
     * As {@link #start(AgentConfig, AgentMetadata, ObjectStore, MeterRegistry, Clock, GroupCoordinatorConfig)},
     * with the agent's tasks run by {@code concurrency} (the deterministic simulation passes its own).
     */
    public static Agent start(
            AgentConfig config,
            AgentMetadata metadata,
            ObjectStore objects,
            MeterRegistry meters,
            Clock clock,
            GroupCoordinatorConfig groupConfig,
            Concurrency concurrency) {
        Agent agent = new Agent(config, metadata, objects, meters, clock, groupConfig, concurrency);
        LOGGER.info(
                "Agent ready agentId={} nodeId={} advertised={}:{} metadata={} objects={}",
                config.agentId(),
                agent.config().nodeId(),
                config.advertisedHost(),
                config.advertisedPort(),
                metadata.description(),
                objects.describe());
        return agent;
    }

    /** The agent's settings, with the node id it holds (allocated, when none was given). */
    public AgentConfig config() {
        return config;
    }

    /**
     * Completes, with the reason, when another agent took this agent's node id (this one was paused
     * past its lease): the agent should then be stopped and started again.
     */
    public CompletionStage<String> nodeIdLost() {
        return membership.nodeIdLost();
    }

    public Cluster cluster() {
        return cluster;
    }

    public Topics topics() {
        return topics;
    }

    public ProducePipeline produce() {
        return produce;
    }

    public FetchService fetch() {
        return fetch;
    }

    public OffsetLookup offsets() {
        return offsets;
    }

    /** The consumer group coordinator (classic and consumer protocols) and committed offsets. */
    public GroupCoordinator groups() {
        return groups;
    }

    /** The transaction coordinator: transactional ids' producers and transactions, in the store. */
    public TransactionCoordinator transactions() {
        return transactions;
    }

    /** The metadata roles the agent was started on. */
    public AgentMetadata metadata() {
        return metadata;
    }

    public ObjectStore objects() {
        return objects;
    }

    public MeterRegistry meters() {
        return meters;
    }

    public Clock clock() {
        return clock;
    }

    /**
     * Stops taking new batches, flushes and commits what is buffered, and completes every pending
     * produce and fetch. The stores stay open.
     */
    @Override
    public void close() {
        LOGGER.info("Agent stopping agentId={}: flushing buffered batches", config.agentId());
        membership.close();
        produce.close();
        fetch.close();
        groups.close();
        transactions.close();
        scheduler.shutdown();
        housekeeping.shutdown();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
            housekeeping.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOGGER.info("Agent stopped agentId={}", config.agentId());
    }
}
