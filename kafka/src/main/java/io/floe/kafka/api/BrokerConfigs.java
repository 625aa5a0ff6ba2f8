package io.floe.kafka.api;

import io.floe.agent.AgentConfig;
import io.floe.core.config.ConfigEntry;
import io.floe.core.config.ConfigSource;
import io.floe.core.config.ConfigType;
import io.floe.core.config.TopicConfigs;
import java.util.List;

/**
 * The agent's settings as DescribeConfigs shows a broker's: the Kafka names tools look for, with
 * Floe's values, and Floe's own settings under {@code floe.}. All read-only: Floe does not alter
 * broker configs at run time.
 */
final class BrokerConfigs {

    private BrokerConfigs() {}

    static List<ConfigEntry> describe(AgentConfig config, String listeners) {
        return List.of(
                agent("node.id", config.nodeId(), ConfigType.INT, "The broker id clients see for this agent"),
                agent("broker.id", config.nodeId(), ConfigType.INT, "Same as node.id"),
                agent("listeners", listeners, ConfigType.STRING, "Where this agent accepts Kafka connections"),
                agent(
                        "advertised.listeners",
                        "PLAINTEXT://" + config.advertisedHost() + ":" + config.advertisedPort(),
                        ConfigType.STRING,
                        "Where clients are told to connect"),
                agent(
                        "num.partitions",
                        config.defaultPartitions(),
                        ConfigType.INT,
                        "Partitions of an auto-created topic or of a topic created with -1 partitions"),
                agent(
                        "auto.create.topics.enable",
                        config.autoCreateTopics(),
                        ConfigType.BOOLEAN,
                        "Create unknown topics on Metadata and Produce requests"),
                agent(
                        "message.max.bytes",
                        config.maxMessageBytes(),
                        ConfigType.INT,
                        "Default max.message.bytes of topics"),
                builtIn(
                        "log.retention.ms",
                        TopicConfigs.builtInDefault(TopicConfigs.RETENTION_MS),
                        ConfigType.LONG,
                        "Default retention.ms of topics"),
                builtIn(
                        "default.replication.factor",
                        "1",
                        ConfigType.INT,
                        "Objects are durable when acknowledged; Floe keeps no replicas"),
                builtIn(
                        "offsets.topic.replication.factor",
                        "1",
                        ConfigType.SHORT,
                        "Objects are durable when acknowledged; Floe keeps no replicas"),
                agent("floe.agent.id", config.agentId(), ConfigType.STRING, "This agent's unique name"),
                agent("floe.cluster.id", config.clusterId(), ConfigType.STRING, "The cluster id clients see"),
                agent(
                        "floe.flush.interval.ms",
                        config.flushInterval().toMillis(),
                        ConfigType.LONG,
                        "How long the flush buffer waits after its first batch"),
                agent(
                        "floe.flush.max.bytes",
                        config.flushMaxBytes(),
                        ConfigType.LONG,
                        "Buffered bytes that trigger a flush at once"),
                agent(
                        "floe.flushes.in.flight.max",
                        config.flushesInFlightMax(),
                        ConfigType.INT,
                        "Flushes that may upload or commit at once"),
                agent("floe.cache.bytes.max", config.cacheBytesMax(), ConfigType.LONG, "Bound of the read cache"),
                agent(
                        "floe.fetch.max.wait.ms",
                        config.fetchMaxWait().toMillis(),
                        ConfigType.LONG,
                        "Upper bound on a fetch's long poll"));
    }

    private static ConfigEntry agent(String name, Object value, ConfigType type, String documentation) {
        return new ConfigEntry(
                name, String.valueOf(value), ConfigSource.STATIC_AGENT, type, true, false, documentation);
    }

    private static ConfigEntry builtIn(String name, String value, ConfigType type, String documentation) {
        return new ConfigEntry(name, value, ConfigSource.DEFAULT, type, true, false, documentation);
    }
}
