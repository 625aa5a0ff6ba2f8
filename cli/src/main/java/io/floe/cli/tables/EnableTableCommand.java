package io.floe.cli.tables;

import io.floe.tableflow.config.TableflowConfigs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code floe tables enable TOPIC}: sets {@code floe.tableflow.enabled=true} and the given table settings. */
@Command(
        name = "enable",
        description = "Materializes a topic as the Iceberg table floe.TOPIC, and as Delta with --delta (topic configs"
                + " floe.tableflow.*; unset options keep the topic's current values).")
final class EnableTableCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private TablesOptions options;

    @Parameters(paramLabel = "TOPIC", description = "The topic.")
    private String topic;

    @Option(names = "--format", paramLabel = "avro|json|raw", description = "How values are read.")
    private String format;

    @Option(names = "--schema", paramLabel = "TEXT", description = "Value schema: Avro schema JSON, or a JSON Schema.")
    private String schema;

    @Option(names = "--schema-file", paramLabel = "PATH", description = "Read the value schema from a file.")
    private Path schemaFile;

    @Option(
            names = "--avro-framing",
            paramLabel = "none|confluent",
            description = "confluent: values start with a magic byte and a schema id.")
    private String avroFraming;

    @Option(
            names = "--partitioning",
            paramLabel = "none|day|hour",
            description = "Partition the table by the record timestamp (applies when the table is created).")
    private String partitioning;

    @Option(names = "--commit-interval-ms", paramLabel = "N", description = "How often the table gets a snapshot.")
    private Long commitIntervalMs;

    @Option(names = "--target-file-bytes", paramLabel = "N", description = "Data file size to aim for.")
    private Long targetFileBytes;

    @Option(
            names = "--mode",
            paramLabel = "append|upsert",
            description = "append: a row per record; upsert: the newest row per key (the record key, or"
                    + " --key-columns), a null value deleting it (fixed when the table is created).")
    private String mode;

    @Option(
            names = "--key-columns",
            paramLabel = "COLUMN[,COLUMN...]",
            description = "Key an upsert table by these top-level fields of the value instead of the record key"
                    + " (each required, of a primitive type other than float or double); a tombstone's record key"
                    + " names the row to delete with the same fields. Fixed when the table is created.")
    private String keyColumns;

    @Option(
            names = "--key-columns-match-record-key",
            negatable = true,
            description = "Declare that record keys map one-to-one to the --key-columns values (each record key"
                    + " carries one id, as Debezium keys by the primary key): required on a topic with"
                    + " cleanup.policy=compact, whose compaction keeps the newest record per record key.")
    private Boolean keyColumnsMatchRecordKey;

    @Option(
            names = "--delta",
            negatable = true,
            description = "Publish the table as a Delta table too (a Delta log over the same data files).")
    private Boolean delta;

    @Option(
            names = "--changes-topic",
            paramLabel = "NAME",
            description = "Publish the table's changes to this topic in Debezium's envelope, exactly once (created"
                    + " when missing; read it with isolation.level=read_committed). An empty name turns it off.")
    private String changesTopic;

    @Override
    public Integer call() {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put(TableflowConfigs.ENABLED, "true");
        put(configs, TableflowConfigs.FORMAT, format);
        if (schema != null && schemaFile != null) {
            spec.commandLine().getErr().println("floe tables enable: give --schema or --schema-file, not both");
            return CommandLine.ExitCode.USAGE;
        }
        if (schemaFile != null) {
            try {
                configs.put(TableflowConfigs.SCHEMA, Files.readString(schemaFile, StandardCharsets.UTF_8));
            } catch (IOException e) {
                spec.commandLine().getErr().println("floe tables enable: cannot read " + schemaFile + ": " + e);
                return CommandLine.ExitCode.USAGE;
            }
        }
        put(configs, TableflowConfigs.SCHEMA, schema);
        put(configs, TableflowConfigs.AVRO_FRAMING, avroFraming);
        put(configs, TableflowConfigs.PARTITIONING, partitioning);
        put(configs, TableflowConfigs.COMMIT_INTERVAL_MS, commitIntervalMs);
        put(configs, TableflowConfigs.TARGET_FILE_BYTES, targetFileBytes);
        put(configs, TableflowConfigs.DELTA_ENABLED, delta);
        put(configs, TableflowConfigs.MODE, mode);
        put(configs, TableflowConfigs.UPSERT_KEY_COLUMNS, keyColumns);
        put(configs, TableflowConfigs.UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY, keyColumnsMatchRecordKey);
        put(configs, TableflowConfigs.CHANGES_TOPIC, changesTopic);
        return options.run("enable", spec.commandLine().getErr(), admin -> {
            TablesOptions.set(admin, topic, configs);
            spec.commandLine().getOut().println("Tableflow enabled for topic '" + topic + "': table floe." + topic);
        });
    }

    private static void put(Map<String, String> configs, String name, Object value) {
        if (value != null) {
            configs.put(name, value.toString());
        }
    }
}
