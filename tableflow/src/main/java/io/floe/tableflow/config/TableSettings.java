package io.floe.tableflow.config;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A topic's Tableflow settings, parsed from its configs ({@link TableflowConfigs}).
 *
 * @param enabled whether the topic is materialized
 * @param format how values are read
 * @param schema the declared value schema text (empty for raw)
 * @param confluentFraming Avro values start with Confluent's magic byte and schema id
 * @param partitioning the table's time partitioning, applied when the table is created
 * @param commitInterval how often a snapshot is committed while records arrive
 * @param targetFileBytes the data file size to aim for
 * @param snapshotRetention how long superseded snapshots are kept
 * @param compression the Parquet codec of new data files (snappy by default: zstd costs about a
 *     third more CPU per byte materialized, see docs/benchmarks.md)
 * @param maintenanceEnabled whether Tableflow compacts, expires snapshots and removes orphan files
 * @param maintenanceInterval how often snapshots are expired and orphan files removed
 * @param compactionTriggerFiles excess data files (beyond what the table's bytes need) that start a compaction
 * @param orphanAge how old an unreferenced file must be before it is deleted
 * @param deltaEnabled whether the table is published as a Delta table too (a Delta log over the same
 *     data files, kept at the Iceberg table's current snapshot)
 * @param mode whether the table holds every record or the newest row per key
 * @param upsertIndexMaxKeys the most keys of an upsert table whose rows the job keeps in memory; above
 *     it a round looks its keys up in the table's files
 */
public record TableSettings(
        boolean enabled,
        ValueFormat format,
        String schema,
        boolean confluentFraming,
        Partitioning partitioning,
        Duration commitInterval,
        long targetFileBytes,
        Duration snapshotRetention,
        String compression,
        boolean maintenanceEnabled,
        Duration maintenanceInterval,
        int compactionTriggerFiles,
        Duration orphanAge,
        boolean deltaEnabled,
        TableMode mode,
        long upsertIndexMaxKeys) {

    /**
     * The shortest orphan age accepted: a round (or a compaction) writes its files before it commits them,
     * so a younger unreferenced file may be about to become part of the table.
     */
    public static final Duration MIN_ORPHAN_AGE = Duration.ofMinutes(10);

    public TableSettings {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(partitioning, "partitioning");
        Objects.requireNonNull(mode, "mode");
        if (commitInterval.isNegative() || commitInterval.isZero()) {
            throw new IllegalArgumentException(TableflowConfigs.COMMIT_INTERVAL_MS + " must be positive");
        }
        if (targetFileBytes < 1) {
            throw new IllegalArgumentException(TableflowConfigs.TARGET_FILE_BYTES + " must be positive");
        }
        if (snapshotRetention.isNegative()) {
            throw new IllegalArgumentException(TableflowConfigs.SNAPSHOT_RETENTION_MS + " must not be negative");
        }
        if (!java.util.Set.of("snappy", "zstd", "gzip", "lz4", "uncompressed").contains(compression)) {
            throw new IllegalArgumentException("Invalid value " + compression + " for configuration "
                    + TableflowConfigs.COMPRESSION + ": must be snappy, zstd, gzip, lz4 or uncompressed");
        }
        if (maintenanceInterval.isNegative() || maintenanceInterval.isZero()) {
            throw new IllegalArgumentException(TableflowConfigs.MAINTENANCE_INTERVAL_MS + " must be positive");
        }
        if (compactionTriggerFiles < 1) {
            throw new IllegalArgumentException(TableflowConfigs.COMPACTION_TRIGGER_FILES + " must be positive");
        }
        if (orphanAge.compareTo(MIN_ORPHAN_AGE) < 0) {
            throw new IllegalArgumentException(TableflowConfigs.ORPHAN_AGE_MS + " of " + orphanAge.toMillis()
                    + " is below the minimum " + MIN_ORPHAN_AGE.toMillis()
                    + ": a round in flight writes its files before it commits them");
        }
        if (upsertIndexMaxKeys < 0) {
            throw new IllegalArgumentException("Invalid value " + upsertIndexMaxKeys + " for configuration "
                    + TableflowConfigs.UPSERT_INDEX_MAX_KEYS
                    + ": must be 0 (never hold the key index in memory) or more keys");
        }
        if (format != ValueFormat.RAW && schema.isBlank()) {
            throw new IllegalArgumentException(TableflowConfigs.SCHEMA + " is required when " + TableflowConfigs.FORMAT
                    + " is " + format.name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    /**
     * The settings a topic's config overrides give; {@link IllegalArgumentException} with a message fit
     * for the user when one is malformed. Topics without Tableflow configs are simply not enabled.
     */
    public static TableSettings from(Map<String, String> topicConfigs) {
        return new TableSettings(
                parseBoolean(topicConfigs, TableflowConfigs.ENABLED),
                ValueFormat.parse(value(topicConfigs, TableflowConfigs.FORMAT)),
                value(topicConfigs, TableflowConfigs.SCHEMA),
                parseFraming(value(topicConfigs, TableflowConfigs.AVRO_FRAMING)),
                Partitioning.parse(value(topicConfigs, TableflowConfigs.PARTITIONING)),
                Duration.ofMillis(parseLong(topicConfigs, TableflowConfigs.COMMIT_INTERVAL_MS)),
                parseLong(topicConfigs, TableflowConfigs.TARGET_FILE_BYTES),
                Duration.ofMillis(parseLong(topicConfigs, TableflowConfigs.SNAPSHOT_RETENTION_MS)),
                value(topicConfigs, TableflowConfigs.COMPRESSION).trim().toLowerCase(java.util.Locale.ROOT),
                parseBoolean(topicConfigs, TableflowConfigs.MAINTENANCE_ENABLED),
                Duration.ofMillis(parseLong(topicConfigs, TableflowConfigs.MAINTENANCE_INTERVAL_MS)),
                parseInt(topicConfigs, TableflowConfigs.COMPACTION_TRIGGER_FILES),
                Duration.ofMillis(parseLong(topicConfigs, TableflowConfigs.ORPHAN_AGE_MS)),
                parseBoolean(topicConfigs, TableflowConfigs.DELTA_ENABLED),
                TableMode.parse(value(topicConfigs, TableflowConfigs.MODE)),
                parseLong(topicConfigs, TableflowConfigs.UPSERT_INDEX_MAX_KEYS));
    }

    private static String value(Map<String, String> configs, String name) {
        String value = configs.get(name);
        if (value != null) {
            return value;
        }
        return TableflowConfigs.DEFINITIONS.stream()
                .filter(def -> def.name().equals(name))
                .findFirst()
                .orElseThrow()
                .defaultValue();
    }

    private static boolean parseBoolean(Map<String, String> configs, String name) {
        String text = value(configs, name);
        if (text.trim().equalsIgnoreCase("true")) {
            return true;
        }
        if (text.trim().equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(
                "Invalid value " + text + " for configuration " + name + ": expected true or false");
    }

    private static boolean parseFraming(String text) {
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "none" -> false;
            case "confluent" -> true;
            default ->
                throw new IllegalArgumentException("Invalid value " + text + " for configuration "
                        + TableflowConfigs.AVRO_FRAMING + ": must be none or confluent");
        };
    }

    private static long parseLong(Map<String, String> configs, String name) {
        String text = value(configs, name);
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Invalid value " + text + " for configuration " + name + ": expected a long");
        }
    }

    private static int parseInt(Map<String, String> configs, String name) {
        String text = value(configs, name);
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Invalid value " + text + " for configuration " + name + ": expected an int");
        }
    }
}
