package io.floe.cli.agent;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code floe agent}: runs one agent until SIGTERM or SIGINT, then shuts it down in order and exits
 * with 0. Each option can also come from a {@code FLOE_*} environment variable or a {@code --config}
 * properties file; a flag wins over the environment, which wins over the file.
 */
@Command(
        name = "agent",
        sortOptions = false,
        description = "Runs a Floe agent: a Kafka-compatible server that keeps its data in an object store.",
        footerHeading = "%nConfiguration:%n",
        footer = {
            "Each option can also be set by an environment variable FLOE_<NAME> (--flush-interval-ms is"
                    + " FLOE_FLUSH_INTERVAL_MS) or in the --config file (flush-interval-ms=20).",
            "A flag wins over the environment, which wins over the config file, which wins over the default."
        })
public final class AgentCommand implements Callable<Integer> {

    private static final Logger LOGGER = LoggerFactory.getLogger(AgentCommand.class);
    private static final String CONFIG_ENV = "FLOE_CONFIG";

    private final Map<String, String> env;
    private final Map<Setting, String> flags = new EnumMap<>(Setting.class);

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", order = 102,
            description = "Properties file with settings, keyed by long option name (flush-interval-ms=20)."
                    + " Env: " + CONFIG_ENV + ".")
    private Path configFile;

    /** {@code env} stands for the process environment. */
    public AgentCommand(Map<String, String> env) {
        this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }

    @Option(names = "--listen", paramLabel = "HOST:PORT", order = 1,
            description = "Kafka listener. Default: " + Setting.Defaults.LISTEN + ".")
    void listen(String value) {
        flag(Setting.LISTEN, value);
    }

    @Option(names = "--advertise", paramLabel = "HOST:PORT", order = 2,
            description = "Address clients are told to connect to. Default: the --listen address;"
                    + " required when that is a wildcard such as 0.0.0.0.")
    void advertise(String value) {
        flag(Setting.ADVERTISE, value);
    }

    @Option(names = "--http-listen", paramLabel = "HOST:PORT", order = 3,
            description = "HTTP endpoint for /metrics and /health. Default: " + Setting.Defaults.HTTP_LISTEN + ".")
    void httpListen(String value) {
        flag(Setting.HTTP_LISTEN, value);
    }

    @Option(names = "--data-dir", paramLabel = "DIR", order = 4,
            description = "Directory of the embedded metadata and object stores. Default: "
                    + Setting.Defaults.DATA_DIR + ".")
    void dataDir(String value) {
        flag(Setting.DATA_DIR, value);
    }

    @Option(names = "--flush-interval-ms", paramLabel = "N", order = 5,
            description = "Longest wait, after its first batch, before the produce buffer is flushed. Default: "
                    + Setting.Defaults.FLUSH_INTERVAL_MS + ".")
    void flushIntervalMs(String value) {
        flag(Setting.FLUSH_INTERVAL_MS, value);
    }

    @Option(names = "--flush-max-bytes", paramLabel = "N", order = 6,
            description = "The produce buffer is flushed when it holds this many bytes. Default: "
                    + Setting.Defaults.FLUSH_MAX_BYTES + ".")
    void flushMaxBytes(String value) {
        flag(Setting.FLUSH_MAX_BYTES, value);
    }

    @Option(names = "--flush-when-producers-wait", paramLabel = "true|false", order = 6,
            description = "Flush the produce buffer before the interval as soon as every connection with produce"
                    + " requests unanswered has sent as many as it ever had in flight (group commit). Default: "
                    + Setting.Defaults.FLUSH_WHEN_PRODUCERS_WAIT + ".")
    void flushWhenProducersWait(String value) {
        flag(Setting.FLUSH_WHEN_PRODUCERS_WAIT, value);
    }

    @Option(names = "--cache-bytes", paramLabel = "N", order = 7,
            description = "Bound of the in-memory read cache. Default: " + Setting.Defaults.CACHE_BYTES
                    + " (256 MiB).")
    void cacheBytes(String value) {
        flag(Setting.CACHE_BYTES, value);
    }

    @Option(names = "--node-id", paramLabel = "N", order = 8,
            description = "Broker id shown to clients; no two live agents may hold one id. Default: "
                    + Setting.Defaults.NODE_ID + " (the metadata store hands out the lowest free id, held while"
                    + " the agent lives).")
    void nodeId(String value) {
        flag(Setting.NODE_ID, value);
    }

    @Option(names = "--cluster-id", paramLabel = "ID", order = 9,
            description = "Cluster id shown to clients. Default: " + Setting.Defaults.CLUSTER_ID + ".")
    void clusterId(String value) {
        flag(Setting.CLUSTER_ID, value);
    }

    @Option(names = "--auto-create-topics", paramLabel = "true|false", order = 10,
            description = "Create unknown topics on Metadata and Produce requests. Default: "
                    + Setting.Defaults.AUTO_CREATE_TOPICS + ".")
    void autoCreateTopics(String value) {
        flag(Setting.AUTO_CREATE_TOPICS, value);
    }

    @Option(names = "--default-partitions", paramLabel = "N", order = 11,
            description = "Partitions of auto-created topics. Default: " + Setting.Defaults.DEFAULT_PARTITIONS + ".")
    void defaultPartitions(String value) {
        flag(Setting.DEFAULT_PARTITIONS, value);
    }

    @Option(names = "--max-message-bytes", paramLabel = "N", order = 12,
            description = "Default max.message.bytes of topics: the largest record batch accepted. Default: "
                    + Setting.Defaults.MAX_MESSAGE_BYTES + ".")
    void maxMessageBytes(String value) {
        flag(Setting.MAX_MESSAGE_BYTES, value);
    }

    @Option(names = "--metadata", paramLabel = "URL", order = 13,
            description = "Metadata store: sqlite:PATH, or postgresql://USER:PASSWORD@HOST:PORT/DATABASE for"
                    + " several agents. Default: sqlite:<data-dir>/metadata.db.")
    void metadata(String value) {
        flag(Setting.METADATA, value);
    }

    @Option(names = "--objects", paramLabel = "URL", order = 14,
            description = "Object store: file:DIR, or s3://BUCKET/PREFIX. Default: file:<data-dir>/objects.")
    void objects(String value) {
        flag(Setting.OBJECTS, value);
    }

    @Option(names = "--s3-endpoint", paramLabel = "URL", order = 15,
            description = "S3-compatible endpoint (http:// or https://) instead of AWS. Default: AWS.")
    void s3Endpoint(String value) {
        flag(Setting.S3_ENDPOINT, value);
    }

    @Option(names = "--s3-region", paramLabel = "REGION", order = 16,
            description = "S3 signing region. Default: " + Setting.Defaults.S3_REGION + ".")
    void s3Region(String value) {
        flag(Setting.S3_REGION, value);
    }

    @Option(names = "--s3-path-style", paramLabel = "true|false", order = 17,
            description = "Address buckets as ENDPOINT/BUCKET (most S3-compatible stores need it). Default: "
                    + Setting.Defaults.S3_PATH_STYLE + ".")
    void s3PathStyle(String value) {
        flag(Setting.S3_PATH_STYLE, value);
    }

    @Option(names = "--s3-access-key-id", paramLabel = "ID", order = 18,
            description = "S3 access key id; with --s3-secret-access-key. Default: the AWS SDK's default"
                    + " credential chain (AWS_ACCESS_KEY_ID, profiles, instance roles).")
    void s3AccessKeyId(String value) {
        flag(Setting.S3_ACCESS_KEY_ID, value);
    }

    @Option(names = "--s3-secret-access-key", paramLabel = "SECRET", order = 19,
            description = "S3 secret access key; never logged. Prefer FLOE_S3_SECRET_ACCESS_KEY or the"
                    + " config file: a flag shows in the process list.")
    void s3SecretAccessKey(String value) {
        flag(Setting.S3_SECRET_ACCESS_KEY, value);
    }

    @Option(names = "--maintenance", paramLabel = "true|false", order = 20,
            description = "Run the background jobs (compaction, key compaction, retention, cleanup); agents"
                    + " sharing stores take turns through leases. Default: " + Setting.Defaults.MAINTENANCE + ".")
    void maintenance(String value) {
        flag(Setting.MAINTENANCE, value);
    }

    @Option(names = "--compaction-target-bytes", paramLabel = "N", order = 21,
            description = "Size compaction grows per-partition objects to; objects under a quarter of it are"
                    + " compacted. Default: " + Setting.Defaults.COMPACTION_TARGET_BYTES + " (64 MiB).")
    void compactionTargetBytes(String value) {
        flag(Setting.COMPACTION_TARGET_BYTES, value);
    }

    @Option(names = "--compaction-interval-ms", paramLabel = "N", order = 22,
            description = "Pause between compaction runs. Default: " + Setting.Defaults.COMPACTION_INTERVAL_MS + ".")
    void compactionIntervalMs(String value) {
        flag(Setting.COMPACTION_INTERVAL_MS, value);
    }

    @Option(names = "--key-compaction-interval-ms", paramLabel = "N", order = 23,
            description = "Pause between key compaction runs, which keep the newest record per key of topics"
                    + " with cleanup.policy=compact. Default: " + Setting.Defaults.KEY_COMPACTION_INTERVAL_MS + ".")
    void keyCompactionIntervalMs(String value) {
        flag(Setting.KEY_COMPACTION_INTERVAL_MS, value);
    }

    @Option(names = "--key-compaction-buffer-bytes", paramLabel = "N", order = 24,
            description = "Memory of key compaction's key-to-offset map (24 bytes a key): one pass over a"
                    + " partition cleans as many dirty records as it holds keys (Kafka's"
                    + " log.cleaner.dedupe.buffer.size). Default: " + Setting.Defaults.KEY_COMPACTION_BUFFER_BYTES
                    + " (16 MiB, about 630000 keys).")
    void keyCompactionBufferBytes(String value) {
        flag(Setting.KEY_COMPACTION_BUFFER_BYTES, value);
    }

    @Option(names = "--retention-check-interval-ms", paramLabel = "N", order = 25,
            description = "Pause between retention runs (retention.ms, retention.bytes). Default: "
                    + Setting.Defaults.RETENTION_CHECK_INTERVAL_MS + ".")
    void retentionCheckIntervalMs(String value) {
        flag(Setting.RETENTION_CHECK_INTERVAL_MS, value);
    }

    @Option(names = "--object-delete-delay-ms", paramLabel = "N", order = 26,
            description = "How long an object no longer referenced stays readable for fetches in flight. Default: "
                    + Setting.Defaults.OBJECT_DELETE_DELAY_MS + ".")
    void objectDeleteDelayMs(String value) {
        flag(Setting.OBJECT_DELETE_DELAY_MS, value);
    }

    @Option(names = "--orphan-grace-ms", paramLabel = "N", order = 27,
            description = "Age at which an upload that was never committed is deleted; at least "
                    + SettingsResolver.ORPHAN_GRACE_MS_MIN + ". Default: "
                    + Setting.Defaults.ORPHAN_GRACE_MS + ".")
    void orphanGraceMs(String value) {
        flag(Setting.ORPHAN_GRACE_MS, value);
    }

    @Option(names = "--producer-id-expiration-ms", paramLabel = "N", order = 27,
            description = "How long an idle producer's idempotence state on a partition is kept after its last"
                    + " write there (Kafka's producer.id.expiration.ms); at least "
                    + SettingsResolver.PRODUCER_ID_EXPIRATION_MS_MIN + ". Default: "
                    + Setting.Defaults.PRODUCER_ID_EXPIRATION_MS + " (1 day).")
    void producerIdExpirationMs(String value) {
        flag(Setting.PRODUCER_ID_EXPIRATION_MS, value);
    }

    @Option(names = "--tableflow", paramLabel = "true|false", order = 26,
            description = "Materialize topics with floe.tableflow.enabled=true as Iceberg tables in the object"
                    + " store, cataloged in the metadata database; agents take turns per table through leases."
                    + " Default: " + Setting.Defaults.TABLEFLOW + ".")
    void tableflow(String value) {
        flag(Setting.TABLEFLOW, value);
    }

    @Option(names = "--tableflow-lease-ms", paramLabel = "N", order = 27,
            description = "How long an agent's lease on a table lasts without renewal: a table whose agent died"
                    + " moves to another agent within it. Default: " + Setting.Defaults.TABLEFLOW_LEASE_MS + ".")
    void tableflowLeaseMs(String value) {
        flag(Setting.TABLEFLOW_LEASE_MS, value);
    }

    @Option(names = "--tableflow-stall-timeout-ms", paramLabel = "N", order = 27,
            description = "How long a table's rounds may keep failing before it is reported stalled (log, metric,"
                    + " floe tables describe) and stops holding back retention; at least "
                    + SettingsResolver.TABLEFLOW_STALL_TIMEOUT_MS_MIN + ". Default: "
                    + Setting.Defaults.TABLEFLOW_STALL_TIMEOUT_MS + " (1 hour).")
    void tableflowStallTimeoutMs(String value) {
        flag(Setting.TABLEFLOW_STALL_TIMEOUT_MS, value);
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        AgentSettings settings;
        try {
            settings = settings();
        } catch (InvalidSettingException e) {
            err.println("floe agent: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        AgentRuntime runtime;
        try {
            runtime = AgentRuntime.start(settings, Clock.systemUTC());
        } catch (AgentStartException e) {
            err.println("floe agent: " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopAndHalt(runtime), "floe-shutdown"));
        runtime.awaitStopped();
        return runtime.lostNodeId() ? CommandLine.ExitCode.SOFTWARE : CommandLine.ExitCode.OK;
    }

    /** The settings from flags, environment and config file, validated. */
    AgentSettings settings() {
        return SettingsResolver.resolve(flags, env, configFile());
    }

    private ConfigFile configFile() {
        if (configFile != null) {
            return ConfigFile.load(configFile);
        }
        String fromEnv = env.get(CONFIG_ENV);
        return fromEnv == null || fromEnv.isBlank() ? ConfigFile.NONE : ConfigFile.load(Path.of(fromEnv.trim()));
    }

    private void flag(Setting setting, String value) {
        if (value == null) {
            flags.remove(setting);
        } else {
            flags.put(setting, value);
        }
    }

    /**
     * Runs in the shutdown hook on SIGTERM or SIGINT. After its hooks the JVM would exit with 128 +
     * the signal number (143, 130); an orderly shutdown is not a failure, so the hook halts with 0
     * once everything is stopped (1 when a part failed to stop). Halting skips the JVM's own
     * shutdown work, notably {@code File.deleteOnExit}: the native library sqlite-jdbc extracted to
     * {@code java.io.tmpdir} (about 1 MB a start) is deleted here instead.
     */
    private static void stopAndHalt(AgentRuntime runtime) {
        LOGGER.info("Shutdown requested");
        boolean clean = runtime.stop();
        ExtractedNativeLibraries.deleteLoaded("libsqlitejdbc");
        Runtime.getRuntime().halt(clean ? CommandLine.ExitCode.OK : CommandLine.ExitCode.SOFTWARE);
    }
}
