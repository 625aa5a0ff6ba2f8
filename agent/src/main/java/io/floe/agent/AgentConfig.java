package io.floe.agent;

import io.floe.agent.cluster.NodeIds;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything an agent needs to know about itself, with Kafka-like defaults. Built by the CLI from
 * flags, environment and config file; validated here.
 *
 * @param nodeId the broker id this agent shows to clients, or {@link io.floe.agent.cluster.NodeIds#ALLOCATED}
 *     to have the metadata store allocate a free one at start
 * @param agentId a unique name for this agent process, recorded with its uploads
 * @param clusterId the cluster id clients see
 * @param advertisedHost host clients are told to connect to
 * @param advertisedPort port clients are told to connect to
 * @param flushInterval how long the flush buffer waits after its first batch before flushing
 * @param flushMaxBytes the buffer flushes as soon as it holds this many bytes
 * @param flushesInFlightMax how many flushes may be uploading or committing at once
 * @param flushWhenProducersWait seal a flush before its interval as soon as every connection with produce
 *     requests unanswered has as many as it ever had, so can send no more (group commit); for stores where
 *     an object costs nothing per write
 * @param cacheBytesMax the read cache's bound
 * @param autoCreateTopics create unknown topics on Metadata and Produce, as Kafka's auto.create.topics.enable
 * @param defaultPartitions partitions of an auto-created topic (Kafka's num.partitions)
 * @param maxMessageBytes the default max.message.bytes of topics (Kafka's message.max.bytes)
 * @param fetchMaxWait upper bound on a fetch's long poll, whatever the client asks
 * @param transactionMaxTimeout the largest {@code transaction.timeout.ms} a transactional producer may ask
 *     for (Kafka's {@code transaction.max.timeout.ms})
 */
public record AgentConfig(
        int nodeId,
        String agentId,
        String clusterId,
        String advertisedHost,
        int advertisedPort,
        Duration flushInterval,
        long flushMaxBytes,
        int flushesInFlightMax,
        boolean flushWhenProducersWait,
        long cacheBytesMax,
        boolean autoCreateTopics,
        int defaultPartitions,
        int maxMessageBytes,
        Duration fetchMaxWait,
        Duration transactionMaxTimeout) {

    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
    /** Kafka's default {@code transaction.max.timeout.ms}: 15 minutes. */
    public static final Duration DEFAULT_TRANSACTION_MAX_TIMEOUT = Duration.ofMinutes(15);

    public AgentConfig {
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(advertisedHost, "advertisedHost");
        Objects.requireNonNull(flushInterval, "flushInterval");
        Objects.requireNonNull(fetchMaxWait, "fetchMaxWait");
        Objects.requireNonNull(transactionMaxTimeout, "transactionMaxTimeout");
        require(
                nodeId >= 0 || nodeId == NodeIds.ALLOCATED,
                "nodeId must be >= 0 or allocated (" + NodeIds.ALLOCATED + "), got " + nodeId);
        require(advertisedPort > 0 && advertisedPort < 65536, "advertised port out of range: " + advertisedPort);
        require(
                !flushInterval.isNegative() && !flushInterval.isZero(),
                "flush interval must be > 0, got " + flushInterval);
        require(flushMaxBytes >= 1024, "flush max bytes must be >= 1024, got " + flushMaxBytes);
        require(flushesInFlightMax >= 1, "flushes in flight must be >= 1, got " + flushesInFlightMax);
        require(cacheBytesMax >= 0, "cache bytes must be >= 0, got " + cacheBytesMax);
        require(defaultPartitions >= 1, "default partitions must be >= 1, got " + defaultPartitions);
        require(maxMessageBytes >= 1024, "max message bytes must be >= 1024, got " + maxMessageBytes);
        require(
                transactionMaxTimeout.toMillis() >= 1 && transactionMaxTimeout.toMillis() <= Integer.MAX_VALUE,
                "transaction max timeout must be 1 to " + Integer.MAX_VALUE + " ms, got " + transactionMaxTimeout);
    }

    /**
     * Defaults for a single local agent: 127.0.0.1:9092, 20 ms flushes of up to 8 MiB sealed early when every
     * producer waits, 256 MiB cache.
     */
    public static AgentConfig defaults() {
        return new AgentConfig(
                0,
                "agent-0",
                "floe-cluster",
                "127.0.0.1",
                9092,
                Duration.ofMillis(20),
                8L * 1024 * 1024,
                4,
                true,
                256L * 1024 * 1024,
                true,
                1,
                DEFAULT_MAX_MESSAGE_BYTES,
                Duration.ofSeconds(30),
                DEFAULT_TRANSACTION_MAX_TIMEOUT);
    }

    /**
     * This agent's Kafka node id (or {@link NodeIds#ALLOCATED}) and process name; no two live agents of
     * a cluster may hold one node id, and agent names must be unique.
     */
    public AgentConfig withIdentity(int node, String agent) {
        return new AgentConfig(
                node,
                agent,
                clusterId,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withAdvertised(String host, int port) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                host,
                port,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withFlush(Duration interval, long maxBytes) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertisedHost,
                advertisedPort,
                interval,
                maxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withFlushWhenProducersWait(boolean enabled) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                enabled,
                cacheBytesMax,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withCacheBytesMax(long bytes) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                bytes,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withAutoCreateTopics(boolean enabled) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                enabled,
                defaultPartitions,
                maxMessageBytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withDefaultPartitions(int partitions) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                autoCreateTopics,
                partitions,
                maxMessageBytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withClusterId(String id) {
        return new AgentConfig(
                nodeId,
                agentId,
                id,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withMaxMessageBytes(int bytes) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                autoCreateTopics,
                defaultPartitions,
                bytes,
                fetchMaxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withFetchMaxWait(Duration maxWait) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                maxWait,
                transactionMaxTimeout);
    }

    public AgentConfig withTransactionMaxTimeout(Duration maxTimeout) {
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertisedHost,
                advertisedPort,
                flushInterval,
                flushMaxBytes,
                flushesInFlightMax,
                flushWhenProducersWait,
                cacheBytesMax,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                fetchMaxWait,
                maxTimeout);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
