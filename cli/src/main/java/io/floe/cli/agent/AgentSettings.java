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
 * @param httpListen where the HTTP endpoint (metrics, health) binds; port 0 picks a free port
 * @param dataDir the directory of the embedded stores, absolute
 * @param agentConfig the agent's configuration but its agent id, chosen at start (see
 *     {@link #agentConfig(String)}): every setting that declares an {@link AgentConfig} field has set it,
 *     and the node id and the advertised address are in it; its node id may be {@link NodeIds#ALLOCATED}
 *     to have the metadata store allocate a free one at start
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
 * @param tableflowUpsertIndexBytes the heap the key indexes of the agent's upsert tables may take together
 * @param changesHoldTimeout how long a change topic may stay behind its table without publishing before
 *     its retention hold on the source topic is let go
 */
record AgentSettings(
        HostPort listen,
        HostPort httpListen,
        Path dataDir,
        AgentConfig agentConfig,
        String metadataUrl,
        String objectsUrl,
        S3Options s3,
        boolean maintenance,
        MaintenanceConfig maintenanceConfig,
        boolean tableflow,
        Duration tableflowLease,
        Duration tableflowStallTimeout,
        long tableflowUpsertIndexBytes,
        Duration changesHoldTimeout) {

    public AgentSettings {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(httpListen, "httpListen");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(agentConfig, "agentConfig");
        Objects.requireNonNull(metadataUrl, "metadataUrl");
        Objects.requireNonNull(objectsUrl, "objectsUrl");
        Objects.requireNonNull(s3, "s3");
        Objects.requireNonNull(maintenanceConfig, "maintenanceConfig");
    }

    /** The agent's configuration, named {@code agentId}. */
    public AgentConfig agentConfig(String agentId) {
        return agentConfig.withIdentity(agentConfig.nodeId(), agentId);
    }

    // Shorthands for fields of agentConfig that the runtime and the tests read; a new setting needs none.

    /** The address clients are told to connect to. */
    public HostPort advertise() {
        return new HostPort(agentConfig.advertisedHost(), agentConfig.advertisedPort());
    }

    /** The broker id clients see, or {@link NodeIds#ALLOCATED}. */
    public int nodeId() {
        return agentConfig.nodeId();
    }

    public int flushIntervalMs() {
        return Math.toIntExact(agentConfig.flushInterval().toMillis());
    }

    public long flushMaxBytes() {
        return agentConfig.flushMaxBytes();
    }

    public boolean flushWhenProducersWait() {
        return agentConfig.flushWhenProducersWait();
    }

    public long cacheBytes() {
        return agentConfig.cacheBytesMax();
    }

    public String clusterId() {
        return agentConfig.clusterId();
    }

    public boolean autoCreateTopics() {
        return agentConfig.autoCreateTopics();
    }

    public int defaultPartitions() {
        return agentConfig.defaultPartitions();
    }

    public int maxMessageBytes() {
        return agentConfig.maxMessageBytes();
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
