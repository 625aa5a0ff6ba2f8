package io.floe.tableflow.config;

import java.util.List;

/** The topic configs that turn Tableflow on for a topic and shape its table. */
public final class TableflowConfigs {

    public static final String PREFIX = "floe.tableflow.";
    public static final String ENABLED = PREFIX + "enabled";
    public static final String FORMAT = PREFIX + "format";
    public static final String SCHEMA = PREFIX + "schema";
    public static final String AVRO_FRAMING = PREFIX + "avro.framing";
    public static final String PARTITIONING = PREFIX + "partitioning";
    public static final String COMMIT_INTERVAL_MS = PREFIX + "commit.interval.ms";
    public static final String TARGET_FILE_BYTES = PREFIX + "target.file.bytes";
    public static final String SNAPSHOT_RETENTION_MS = PREFIX + "snapshot.retention.ms";
    public static final String COMPRESSION = PREFIX + "compression";
    public static final String MAINTENANCE_ENABLED = PREFIX + "maintenance.enabled";
    public static final String MAINTENANCE_INTERVAL_MS = PREFIX + "maintenance.interval.ms";
    public static final String COMPACTION_TRIGGER_FILES = PREFIX + "compaction.trigger.files";
    public static final String ORPHAN_AGE_MS = PREFIX + "orphan.age.ms";
    public static final String CHANGES_TOPIC = PREFIX + "changes.topic";
    public static final String DELTA_ENABLED = PREFIX + "delta.enabled";
    public static final String MODE = PREFIX + "mode";
    public static final String UPSERT_INDEX_MAX_KEYS = PREFIX + "upsert.index.max.keys";
    public static final String UPSERT_KEY_COLUMNS = PREFIX + "upsert.key.columns";
    public static final String UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY = UPSERT_KEY_COLUMNS + ".match.record.key";

    /** Every Tableflow topic config, with its default and what it does (for docs and DescribeConfigs). */
    public static final List<Definition> DEFINITIONS = List.of(
            new Definition(ENABLED, "false", "materialize the topic as an Iceberg table"),
            new Definition(FORMAT, "raw", "how record values are read: avro, json (with a JSON schema) or raw bytes"),
            new Definition(SCHEMA, "", "the value schema: Avro schema JSON for avro, a JSON Schema for json"),
            new Definition(
                    AVRO_FRAMING,
                    "none",
                    "none: values are plain Avro binary; confluent: a magic byte and 4-byte schema id come first"),
            new Definition(PARTITIONING, "none", "table partitioning by the record timestamp: none, day or hour"),
            new Definition(COMMIT_INTERVAL_MS, "60000", "how often the table gets a snapshot while records arrive"),
            new Definition(TARGET_FILE_BYTES, "134217728", "size the table's data files grow to"),
            new Definition(SNAPSHOT_RETENTION_MS, "86400000", "how long old snapshots stay for time travel"),
            new Definition(
                    COMPRESSION,
                    "snappy",
                    "Parquet compression of new data files: snappy, zstd, gzip, lz4 or uncompressed"),
            new Definition(
                    MAINTENANCE_ENABLED,
                    "true",
                    "compact small files, expire old snapshots and remove orphan files (false: another engine does)"),
            new Definition(
                    MAINTENANCE_INTERVAL_MS,
                    "3600000",
                    "how often snapshots are expired and orphan files"
                            + " removed; small files wait at most this long for compaction"),
            new Definition(
                    COMPACTION_TRIGGER_FILES,
                    "32",
                    "compaction runs once the table has this many more data"
                            + " files than its bytes need at the target size (counted since the last compaction)"),
            new Definition(
                    ORPHAN_AGE_MS,
                    "86400000",
                    "files in the table's data and metadata directories that no"
                            + " snapshot references are deleted once older than this (at least 600000: a round in flight"
                            + " writes its files before it commits them)"),
            new Definition(
                    CHANGES_TOPIC,
                    "",
                    "publish the table's changes to this topic in Debezium's envelope, exactly once, after each"
                            + " commit (created when missing; empty: none)"),
            new Definition(
                    DELTA_ENABLED,
                    "false",
                    "publish the table as a Delta table too: a Delta log in its _delta_log directory over the"
                            + " same data files, brought up to the Iceberg table after each of its commits"),
            new Definition(
                    MODE,
                    "append",
                    "append: a row per record; upsert: the newest row per key (the record key, or the"
                            + " upsert.key.columns of the value), a null value deleting the key's row (fixed when the"
                            + " table is created)"),
            new Definition(
                    UPSERT_KEY_COLUMNS,
                    "",
                    "an upsert table's key: comma-separated top-level fields of the declared schema, each required"
                            + " and of a primitive type other than float or double, set as the table's identifier"
                            + " fields; a tombstone's record key names the row to delete with the same fields. Empty:"
                            + " the Kafka record key (fixed when the table is created)"),
            new Definition(
                    UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY,
                    "false",
                    "true declares that record keys map one-to-one to the upsert.key.columns values (each record"
                            + " key carries one id, and each id one record key, as Debezium keys by the primary key):"
                            + " required to key a table by columns on a topic with cleanup.policy=compact, whose"
                            + " compaction keeps the newest record per record key"),
            new Definition(
                    UPSERT_INDEX_MAX_KEYS,
                    "500000",
                    "an upsert table of at most this many keys keeps where each key's row is in the agent's heap"
                            + " (about 145 bytes a key plus the key's bytes); a round of a larger one reads the key"
                            + " column of the data files that may hold its keys instead (0: always)"));

    public record Definition(String name, String defaultValue, String documentation) {}

    private TableflowConfigs() {}
}
