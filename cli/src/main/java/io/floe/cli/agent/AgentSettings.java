package io.floe.cli.agent;

import io.floe.agent.AgentConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The validated settings of one {@code floe agent} process, built by {@link SettingsResolver}.
 *
 * @param listen where the Kafka listener binds
 * @param advertise the address clients are told to connect to
 * @param httpListen where the HTTP endpoint (metrics, health) binds; port 0 picks a free port
 * @param dataDir the directory of the embedded stores, absolute
 * @param flushIntervalMs how long the flush buffer waits after its first batch
 * @param flushMaxBytes the flush buffer flushes when it holds this many bytes
 * @param cacheBytes the bound of the read cache
 * @param nodeId the broker id clients see
 * @param clusterId the cluster id clients see
 * @param autoCreateTopics whether Metadata and Produce requests create unknown topics
 * @param defaultPartitions the partition count of auto-created topics
 * @param maxMessageBytes the default max.message.bytes of topics
 */
record AgentSettings(
        HostPort listen,
        HostPort advertise,
        HostPort httpListen,
        Path dataDir,
        int flushIntervalMs,
        long flushMaxBytes,
        long cacheBytes,
        int nodeId,
        String clusterId,
        boolean autoCreateTopics,
        int defaultPartitions,
        int maxMessageBytes) {

    public AgentSettings {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(advertise, "advertise");
        Objects.requireNonNull(httpListen, "httpListen");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(clusterId, "clusterId");
    }

    /** Where the metadata store lives: the embedded SQLite database in the data directory. */
    public String metadataUrl() {
        return "sqlite:" + dataDir.resolve("metadata.db");
    }

    /** Where the object store lives: the {@code objects} directory in the data directory. */
    public String objectsUrl() {
        return "file:" + dataDir.resolve("objects");
    }

    /** The agent's configuration; what has no setting of its own keeps {@link AgentConfig#defaults()}. */
    public AgentConfig agentConfig(String agentId) {
        AgentConfig defaults = AgentConfig.defaults();
        return new AgentConfig(
                nodeId,
                agentId,
                clusterId,
                advertise.host(),
                advertise.port(),
                Duration.ofMillis(flushIntervalMs),
                flushMaxBytes,
                defaults.flushesInFlightMax(),
                cacheBytes,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                defaults.fetchMaxWait());
    }

    /** The effective settings as {@code key=value} pairs, for the start-up log line. */
    public String describe() {
        return String.join(" ",
                "listen=" + listen,
                "advertise=" + advertise,
                "http-listen=" + httpListen,
                "data-dir=" + dataDir,
                "flush-interval-ms=" + flushIntervalMs,
                "flush-max-bytes=" + flushMaxBytes,
                "cache-bytes=" + cacheBytes,
                "node-id=" + nodeId,
                "cluster-id=" + clusterId,
                "auto-create-topics=" + autoCreateTopics,
                "default-partitions=" + defaultPartitions,
                "max-message-bytes=" + maxMessageBytes);
    }
}
