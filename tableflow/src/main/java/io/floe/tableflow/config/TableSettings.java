package io.floe.tableflow.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * @param upsertKeyColumns the top-level value fields whose values are an upsert table's key, in the order
 *     given; empty when the key is the Kafka record key (checked against the declared schema where the
 *     table schema is made: {@code Rows.tableSchema})
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
        long upsertIndexMaxKeys,
        List<String> upsertKeyColumns) {

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
        upsertKeyColumns = List.copyOf(upsertKeyColumns);
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
        checkKeyColumns(upsertKeyColumns, mode, format);
    }

    /** Key columns belong to upsert tables of values with fields; the schema checks the fields themselves. */
    private static void checkKeyColumns(List<String> columns, TableMode mode, ValueFormat format) {
        if (columns.isEmpty()) {
            return;
        }
        String given = TableflowConfigs.UPSERT_KEY_COLUMNS + "=" + String.join(",", columns);
        if (mode != TableMode.UPSERT) {
            throw new IllegalArgumentException(given + " keys an upsert table, and " + TableflowConfigs.MODE + " is "
                    + mode.configName() + ": set " + TableflowConfigs.MODE + "=upsert too, or leave "
                    + TableflowConfigs.UPSERT_KEY_COLUMNS + " empty");
        }
        if (format == ValueFormat.RAW) {
            throw new IllegalArgumentException(given + " names fields of the value, and raw values have none: set "
                    + TableflowConfigs.FORMAT + " to avro or json with a " + TableflowConfigs.SCHEMA
                    + ", or leave " + TableflowConfigs.UPSERT_KEY_COLUMNS + " empty to key by the record key");
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
                parseLong(topicConfigs, TableflowConfigs.UPSERT_INDEX_MAX_KEYS),
                parseColumns(value(topicConfigs, TableflowConfigs.UPSERT_KEY_COLUMNS)));
    }

    /** A comma-separated list of distinct, non-empty names (spaces around them dropped); blank: none. */
    private static List<String> parseColumns(String text) {
        if (text.isBlank()) {
            return List.of();
        }
        List<String> columns = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String name = part.trim();
            if (name.isEmpty() || columns.contains(name)) {
                throw new IllegalArgumentException("Invalid value " + text + " for configuration "
                        + TableflowConfigs.UPSERT_KEY_COLUMNS + ": "
                        + (name.isEmpty() ? "an empty column name" : "column " + name + " named twice")
                        + "; give distinct field names separated by commas, e.g. region,id");
            }
            columns.add(name);
        }
        return List.copyOf(columns);
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
