package io.floe.core.config;

import io.floe.core.topic.Topic;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The topic configs Floe knows, with Kafka's defaults, and the agent-level values that override those
 * defaults. Floe-specific settings live under the {@code floe.} prefix and are accepted as strings.
 */
public final class TopicConfigs {

    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String FLOE_PREFIX = "floe.";

    private static final Map<String, TopicConfigDef> DEFINITIONS = definitions();

    private final Map<String, String> agentDefaults;
    private final List<Consumer<Map<String, String>>> checks = new CopyOnWriteArrayList<>();
    private final List<BiConsumer<Topic, Map<String, String>>> changeChecks = new CopyOnWriteArrayList<>();

    /** {@code agentDefaults}: topic-config values the agent's own configuration sets (e.g. max.message.bytes). */
    public TopicConfigs(Map<String, String> agentDefaults) {
        agentDefaults.forEach(this::validateOne);
        this.agentDefaults = Map.copyOf(agentDefaults);
    }

    /** Checks names and values of topic overrides; throws {@link InvalidConfigException} for the first bad one. */
    public void validate(Map<String, String> overrides) {
        overrides.forEach(this::validateOne);
        checkCompactionLags(overrides);
        for (Consumer<Map<String, String>> check : checks) {
            check.accept(overrides);
        }
    }

    /**
     * Adds a check of a topic's overrides as a whole (settings that depend on each other, such as a
     * declared schema and its format), run by {@link #validate} after each value's own; it throws
     * {@link InvalidConfigException} for a bad combination.
     */
    public void addCheck(Consumer<Map<String, String>> check) {
        checks.add(check);
    }

    /**
     * Adds a check of a change of a topic's overrides (given the topic as stored, or for a topic being
     * created one with no overrides, and its new overrides), run by {@link #validateChange} after
     * {@link #validate}: for settings whose new value must fit what the old one made (a declared schema
     * and the table it shaped).
     */
    public void addChangeCheck(BiConsumer<Topic, Map<String, String>> check) {
        changeChecks.add(check);
    }

    /** {@link #validate} of {@code overrides}, then the change checks of {@code current} becoming them. */
    public void validateChange(Topic current, Map<String, String> overrides) {
        validate(overrides);
        for (BiConsumer<Topic, Map<String, String>> check : changeChecks) {
            check.accept(current, overrides);
        }
    }

    /** The effective value of {@code name} for {@code topic}. */
    public String value(Topic topic, String name) {
        String override = topic.configs().get(name);
        if (override != null) {
            return override;
        }
        String agentValue = agentDefaults.get(name);
        if (agentValue != null) {
            return agentValue;
        }
        TopicConfigDef def = DEFINITIONS.get(name);
        return def == null ? null : def.defaultValue();
    }

    /** The topic's cleanup policies: {@code delete}, {@code compact}, both or (an empty value) none. */
    public Set<String> cleanupPolicy(Topic topic) {
        Set<String> policies = new TreeSet<>();
        for (String policy : value(topic, CLEANUP_POLICY).split(",")) {
            if (!policy.isBlank()) {
                policies.add(policy.trim());
            }
        }
        return policies;
    }

    /** True when the topic's cleanup policy includes {@code compact}: key compaction keeps the newest record per key. */
    public boolean compacted(Topic topic) {
        // Asked for every produced batch: no set built, just the list scanned.
        for (String policy : value(topic, CLEANUP_POLICY).split(",")) {
            if (policy.trim().equals("compact")) {
                return true;
            }
        }
        return false;
    }

    public int maxMessageBytes(Topic topic) {
        return Integer.parseInt(value(topic, MAX_MESSAGE_BYTES).trim());
    }

    /** Every known config of the topic with its effective value and source, plus its floe.* overrides. */
    public List<ConfigEntry> describe(Topic topic) {
        List<ConfigEntry> entries = new ArrayList<>();
        for (TopicConfigDef def : DEFINITIONS.values()) {
            String override = topic.configs().get(def.name());
            String agentValue = agentDefaults.get(def.name());
            ConfigSource source = override != null
                    ? ConfigSource.TOPIC_OVERRIDE
                    : agentValue != null ? ConfigSource.STATIC_AGENT : ConfigSource.DEFAULT;
            String value = override != null ? override : agentValue != null ? agentValue : def.defaultValue();
            entries.add(new ConfigEntry(def.name(), value, source, def.type(), false, false, def.documentation()));
        }
        topic.configs().forEach((name, value) -> {
            if (!DEFINITIONS.containsKey(name)) {
                entries.add(new ConfigEntry(
                        name, value, ConfigSource.TOPIC_OVERRIDE, ConfigType.STRING, false, false, "Floe setting"));
            }
        });
        return entries;
    }

    /** The default value of a known topic config, or null. */
    public static String builtInDefault(String name) {
        TopicConfigDef def = DEFINITIONS.get(name);
        return def == null ? null : def.defaultValue();
    }

    /** True for configs whose value is a comma-separated list (which AlterConfigs may append to and subtract from). */
    public static boolean isList(String name) {
        TopicConfigDef def = DEFINITIONS.get(name);
        return def != null && def.type() == ConfigType.LIST;
    }

    public static boolean isKnown(String name) {
        return DEFINITIONS.containsKey(name) || name.startsWith(FLOE_PREFIX);
    }

    /** Kafka's {@code LogConfig.validateValues}: the effective minimum compaction lag may not exceed the maximum. */
    private void checkCompactionLags(Map<String, String> overrides) {
        long min = Long.parseLong(effective(overrides, MIN_COMPACTION_LAG_MS).trim());
        long max = Long.parseLong(effective(overrides, MAX_COMPACTION_LAG_MS).trim());
        if (min > max) {
            throw new InvalidConfigException("conflict topic config setting " + MIN_COMPACTION_LAG_MS + " (" + min
                    + ") > " + MAX_COMPACTION_LAG_MS + " (" + max + ")");
        }
    }

    private String effective(Map<String, String> overrides, String name) {
        String override = overrides.get(name);
        if (override != null) {
            return override;
        }
        String agentValue = agentDefaults.get(name);
        return agentValue != null ? agentValue : DEFINITIONS.get(name).defaultValue();
    }

    private void validateOne(String name, String value) {
        TopicConfigDef def = DEFINITIONS.get(name);
        if (def != null) {
            def.validate(value);
        } else if (!name.startsWith(FLOE_PREFIX)) {
            throw new InvalidConfigException("Unknown topic config name: " + name);
        }
    }

    private static Map<String, TopicConfigDef> definitions() {
        Map<String, TopicConfigDef> defs = new LinkedHashMap<>();
        List.of(
                        new TopicConfigDef(
                                CLEANUP_POLICY,
                                ConfigType.LIST,
                                "delete",
                                Set.of("delete", "compact"),
                                "delete removes old segments by retention; compact keeps the newest record per key"),
                        new TopicConfigDef(
                                "compression.type",
                                ConfigType.STRING,
                                "producer",
                                Set.of("producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"),
                                "batches are stored as the producer compressed them"),
                        TopicConfigDef.atLeast(
                                DELETE_RETENTION_MS,
                                ConfigType.LONG,
                                "86400000",
                                0,
                                "how long tombstones and transaction markers stay after key compaction first finds"
                                        + " them removable"),
                        new TopicConfigDef(
                                "file.delete.delay.ms", ConfigType.LONG, "60000", "delay before deleting an object"),
                        new TopicConfigDef(
                                "flush.messages",
                                ConfigType.LONG,
                                "9223372036854775807",
                                "ignored: every ack is durable"),
                        new TopicConfigDef(
                                "flush.ms", ConfigType.LONG, "9223372036854775807", "ignored: every ack is durable"),
                        new TopicConfigDef("index.interval.bytes", ConfigType.INT, "4096", "ignored by Floe"),
                        TopicConfigDef.atLeast(
                                MAX_COMPACTION_LAG_MS,
                                ConfigType.LONG,
                                "9223372036854775807",
                                1,
                                "maximum time a record stays uncompacted (also rolls the emulated segment)"),
                        new TopicConfigDef(
                                MAX_MESSAGE_BYTES, ConfigType.INT, "1048588", "largest record batch accepted"),
                        new TopicConfigDef(
                                "message.timestamp.after.max.ms",
                                ConfigType.LONG,
                                "3600000",
                                "how far in the future a timestamp may be"),
                        new TopicConfigDef(
                                "message.timestamp.before.max.ms",
                                ConfigType.LONG,
                                "9223372036854775807",
                                "how far in the past a timestamp may be"),
                        new TopicConfigDef(
                                MESSAGE_TIMESTAMP_TYPE,
                                ConfigType.STRING,
                                "CreateTime",
                                Set.of("CreateTime", "LogAppendTime"),
                                "CreateTime keeps producer timestamps"),
                        TopicConfigDef.between(
                                MIN_CLEANABLE_DIRTY_RATIO, ConfigType.DOUBLE, "0.5", 0, 1, "when key compaction runs"),
                        TopicConfigDef.atLeast(
                                MIN_COMPACTION_LAG_MS,
                                ConfigType.LONG,
                                "0",
                                0,
                                "minimum time a record stays uncompacted"),
                        new TopicConfigDef(
                                "min.insync.replicas",
                                ConfigType.INT,
                                "1",
                                "accepted for compatibility: objects are durable when acknowledged"),
                        new TopicConfigDef(
                                RETENTION_BYTES, ConfigType.LONG, "-1", "maximum log size per partition, -1 unlimited"),
                        new TopicConfigDef(
                                RETENTION_MS, ConfigType.LONG, "604800000", "how long records are kept, -1 forever"),
                        TopicConfigDef.atLeast(
                                SEGMENT_BYTES,
                                ConfigType.INT,
                                "1073741824",
                                1024 * 1024,
                                "size at which Kafka rolls a segment; key compaction never cleans the emulated"
                                        + " active segment"),
                        TopicConfigDef.atLeast(
                                SEGMENT_MS,
                                ConfigType.LONG,
                                "604800000",
                                1,
                                "time after which Kafka rolls a segment; key compaction never cleans the emulated"
                                        + " active segment"),
                        new TopicConfigDef(
                                "unclean.leader.election.enable", ConfigType.BOOLEAN, "false", "no replicas in Floe"))
                .forEach(def -> defs.put(def.name(), def));
        return java.util.Collections.unmodifiableMap(defs);
    }
}
