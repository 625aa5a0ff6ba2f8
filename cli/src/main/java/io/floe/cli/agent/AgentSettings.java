package io.floe.cli.agent;

import io.floe.agent.AgentConfig;
import io.floe.agent.cluster.NodeIds;
import io.floe.maintenance.MaintenanceConfig;
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
 * @param flushWhenProducersWait whether the flush buffer flushes as soon as every producer waits on it
 * @param cacheBytes the bound of the read cache
 * @param nodeId the broker id clients see, or {@link NodeIds#ALLOCATED} to have the metadata store
 *     allocate a free one at start
 * @param clusterId the cluster id clients see
 * @param autoCreateTopics whether Metadata and Produce requests create unknown topics
 * @param defaultPartitions the partition count of auto-created topics
 * @param maxMessageBytes the default max.message.bytes of topics
 * @param metadataUrl the metadata store, by default the SQLite database in the data directory; it may
 *     hold a password, so show it only through {@link Backends#redact}
 * @param objectsUrl the object store, by default the {@code objects} directory in the data directory
 * @param s3 how an {@code s3://} object store is reached
 * @param maintenance whether this agent runs the background jobs (compaction, key compaction, retention, cleanup)
 * @param maintenanceConfig the background jobs' configuration
 * @param tableflow whether this agent materializes topics with {@code floe.tableflow.enabled=true}
 *     as Iceberg tables (agents sharing stores take turns per table through leases)
 * @param tableflowLease how long a table's lease lasts: a table whose agent died moves within it
 * @param tableflowStallTimeout how long a table's rounds may keep failing before it counts as stalled
 *     and its retention hold is let go
 */
record AgentSettings(
        HostPort listen,
        HostPort advertise,
        HostPort httpListen,
        Path dataDir,
        int flushIntervalMs,
        long flushMaxBytes,
        boolean flushWhenProducersWait,
        long cacheBytes,
        int nodeId,
        String clusterId,
        boolean autoCreateTopics,
        int defaultPartitions,
        int maxMessageBytes,
        String metadataUrl,
        String objectsUrl,
        S3Options s3,
        boolean maintenance,
        MaintenanceConfig maintenanceConfig,
        boolean tableflow,
        Duration tableflowLease,
        Duration tableflowStallTimeout) {

    public AgentSettings {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(advertise, "advertise");
        Objects.requireNonNull(httpListen, "httpListen");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(metadataUrl, "metadataUrl");
        Objects.requireNonNull(objectsUrl, "objectsUrl");
        Objects.requireNonNull(s3, "s3");
        Objects.requireNonNull(maintenanceConfig, "maintenanceConfig");
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
                flushWhenProducersWait,
                cacheBytes,
                autoCreateTopics,
                defaultPartitions,
                maxMessageBytes,
                defaults.fetchMaxWait());
    }

    /**
     * The effective settings as {@code key=value} pairs, for the start-up log line. Secrets show as
     * {@code ****}: the S3 secret key and a password in the metadata URL.
     */
    public String describe() {
        return Setting.describe(this);
    }

    /** As {@link #describe()}: the generated form would show the metadata URL's password. */
    @Override
    public String toString() {
        return "AgentSettings[" + describe() + "]";
    }
}
