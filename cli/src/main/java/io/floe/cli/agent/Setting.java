package io.floe.cli.agent;

import static io.floe.cli.agent.Declaration.address;
import static io.floe.cli.agent.Declaration.bool;
import static io.floe.cli.agent.Declaration.integer;
import static io.floe.cli.agent.Declaration.millis;
import static io.floe.cli.agent.Declaration.text;

import io.floe.agent.AgentConfig;
import io.floe.agent.cluster.NodeIds;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.objectstore.s3.S3ObjectStoreConfig.StaticCredentials;
import io.floe.tableflow.TableflowConfig;
import io.floe.tableflow.changes.stream.ChangeStreamConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The settings of {@code floe agent}, each declared once: its {@link Declaration} gives its values,
 * default, limits and documentation. From it come the long flag ({@code --flush-interval-ms}), the
 * environment variable ({@code FLOE_FLUSH_INTERVAL_MS}) and the config-file key
 * ({@code flush-interval-ms}), all from the constant's name, and the {@code --help} text, the
 * README.md table and the start-up line. A setting of the agent or of the background jobs names the
 * {@link AgentConfig} or {@link MaintenanceConfig} field it sets ({@link Declaration#configures},
 * {@link Declaration#sets}): its default is that field's in {@link AgentConfig#defaults()} or
 * {@link MaintenanceConfig#DEFAULTS}, the resolver sets it, and the start-up line reads it back, so
 * such a setting is its constant alone. A secret setting's value is never shown: not in the start-up
 * line, not in an error message.
 */
enum Setting {
    LISTEN(address(1).byDefault(Defaults.LISTEN).doc("Kafka listener.").shows(AgentSettings::listen)),
    ADVERTISE(address(1)
            .derivedDefault("the `--listen` address")
            .doc("Address clients are told to connect to; required when the listener is a wildcard such as"
                    + " `0.0.0.0`.")
            .shows(AgentSettings::advertise)),
    HTTP_LISTEN(address(0)
            .byDefault("127.0.0.1:9644")
            .doc("HTTP endpoint: `/metrics`, `/health`; port 0 picks a" + " free port.")
            .shows(AgentSettings::httpListen)),
    DATA_DIR(text("DIR")
            .byDefault("./floe-data")
            .doc("Directory of the default stores: `metadata.db` (SQLite) and `objects/`.")
            .shows(AgentSettings::dataDir)),
    FLUSH_INTERVAL_MS(integer(1, 60_000)
            .configures(
                    millis(AgentConfig::flushInterval),
                    (c, v) -> c.withFlush(Duration.ofMillis(v), c.flushMaxBytes()),
                    "")
            .byObjectStore(AgentConfig.defaults().flushInterval().toMillis(), 250)
            .doc("Longest wait, after its first batch, before the produce buffer is flushed; on S3 every flush is a"
                    + " PUT, 4 per second at most by default.")),
    FLUSH_MAX_BYTES(integer(1024, 1L << 30)
            .configures(AgentConfig::flushMaxBytes, (c, v) -> c.withFlush(c.flushInterval(), v), "")
            .byObjectStore(AgentConfig.defaults().flushMaxBytes(), 32L << 20)
            .doc("The produce buffer is flushed when it holds this many bytes; on S3 a flush is a PUT, and 32 MiB"
                    + " keeps an agent at 4 PUTs per second up to 128 MiB/s of ingest.")),
    FLUSH_WHEN_PRODUCERS_WAIT(bool().configuresBool(
                    AgentConfig::flushWhenProducersWait, AgentConfig::withFlushWhenProducersWait)
            .byObjectStore(AgentConfig.defaults().flushWhenProducersWait(), false)
            .doc("Flush the produce buffer before the interval as soon as every connection with produce requests"
                    + " unanswered has sent as many as it ever had in flight (group commit); on S3 each early"
                    + " flush would be one more PUT.")),
    CACHE_BYTES(integer(0, Long.MAX_VALUE)
            .configures(AgentConfig::cacheBytesMax, AgentConfig::withCacheBytesMax, "(256 MiB)")
            .doc("Bound of the in-memory read cache (with `s3:` objects it also holds fresh objects for tailing"
                    + " consumers; with `file:` objects the page cache does).")),
    NODE_ID(integer(0, Integer.MAX_VALUE)
            .byDefault(Defaults.NODE_ID)
            .doc("Broker id clients see; `allocated`: the lowest id no live agent holds, taken from the metadata"
                    + " store at start and held while the agent lives. A given id that a live agent holds is"
                    + " refused.")
            .shows(s -> s.nodeId() == NodeIds.ALLOCATED ? Defaults.NODE_ID : Integer.toString(s.nodeId()))),
    CLUSTER_ID(
            text("ID", Pattern.compile("[A-Za-z0-9._-]{1,128}"), "expected 1 to 128 letters, digits, '.', '_' or '-'")
                    .configuresText(AgentConfig::clusterId, AgentConfig::withClusterId)
                    .doc("Cluster id clients see.")),
    AUTO_CREATE_TOPICS(bool().configuresBool(AgentConfig::autoCreateTopics, AgentConfig::withAutoCreateTopics)
            .doc("Create unknown topics on Metadata and Produce requests.")),
    DEFAULT_PARTITIONS(integer(1, Integer.MAX_VALUE)
            .configures(AgentConfig::defaultPartitions, (c, v) -> c.withDefaultPartitions(v.intValue()), "")
            .doc("Partitions of auto-created topics.")),
    MAX_MESSAGE_BYTES(integer(1024, Integer.MAX_VALUE)
            .configures(AgentConfig::maxMessageBytes, (c, v) -> c.withMaxMessageBytes(v.intValue()), "")
            .doc("Default `max.message.bytes` of topics: the largest record batch accepted.")),
    FETCH_MAX_WAIT_MS(integer(0, Integer.MAX_VALUE)
            .configures(millis(AgentConfig::fetchMaxWait), (c, v) -> c.withFetchMaxWait(Duration.ofMillis(v)), "")
            .doc("Longest a fetch waits for records to arrive (its long poll), whatever the client's"
                    + " `fetch.max.wait.ms` asks; `0` answers every fetch at once.")),
    TRANSACTION_MAX_TIMEOUT_MS(integer(1, Integer.MAX_VALUE)
            .configures(
                    millis(AgentConfig::transactionMaxTimeout),
                    (c, v) -> c.withTransactionMaxTimeout(Duration.ofMillis(v)),
                    "(15 min)")
            .doc("Largest `transaction.timeout.ms` a transactional producer may ask for; a larger one is refused at"
                    + " InitProducerId with INVALID_TRANSACTION_TIMEOUT (Kafka's `transaction.max.timeout.ms`).")),
    METADATA(text("URL")
            .derivedDefault("`sqlite:<data-dir>/metadata.db`")
            .doc("Metadata store: `sqlite:PATH`, or `postgresql://USER:PASSWORD@HOST:PORT/DATABASE` for several"
                    + " agents.")
            .shows(s -> Backends.redact(s.metadataUrl()))),
    OBJECTS(text("URL")
            .derivedDefault("`file:<data-dir>/objects`")
            .doc("Object store: `file:DIR`, or `s3://BUCKET/PREFIX`.")
            .shows(AgentSettings::objectsUrl)),
    S3_ENDPOINT(text("URL")
            .derivedDefault("AWS")
            .doc("An S3-compatible endpoint (`http://` or `https://`) instead of AWS.")
            .shows(s -> s.s3().endpoint().map(URI::toString).orElse("(AWS)"))),
    S3_REGION(text("REGION", Pattern.compile("[A-Za-z0-9_-]+"), "expected a region name such as us-east-1")
            .byDefault(S3Options.DEFAULTS.region())
            .doc("S3 signing region.")
            .shows(s -> s.s3().region())),
    S3_PATH_STYLE(bool().byDefault(S3Options.DEFAULTS.pathStyleAccess())
            .doc("Address buckets as `ENDPOINT/BUCKET`; most S3-compatible stores need it.")
            .shows(s -> s.s3().pathStyleAccess())),
    S3_ACCESS_KEY_ID(text("ID")
            .derivedDefault("none")
            .doc("Static S3 key id, together with the secret; without both, the AWS SDK's default credential"
                    + " chain (environment, profile, web identity, container or instance role).")
            .shows(s -> s.s3().credentials().map(StaticCredentials::accessKeyId).orElse(Defaults.CHAIN))),
    S3_SECRET_ACCESS_KEY(text("SECRET")
            .derivedDefault("none")
            .asSecret()
            .doc("Static S3 secret; never logged, shown as `****`. Prefer the environment or the config file: a"
                    + " flag is visible in the process list.")
            .shows(s -> s.s3().credentials().map(c -> "****").orElse(Defaults.CHAIN))),
    MAINTENANCE(bool().byDefault(true)
            .doc("Run the background jobs: compaction, key compaction, retention and the cleanup of unreferenced"
                    + " and orphaned objects; agents sharing stores take turns through leases.")
            .shows(AgentSettings::maintenance)),
    // The compaction target sets the small-object size too: a quarter of it, MaintenanceConfig.DEFAULTS' ratio.
    COMPACTION_TARGET_BYTES(integer(1024, 1L << 30)
            .sets(
                    MaintenanceConfig::compactionTargetBytes,
                    (c, v) -> c.withCompaction(c.compactionInterval(), v, Math.max(1, v / 4), c.compactionMinAge()),
                    "(64 MiB)")
            .doc("Size compaction grows per-partition objects to; objects under a quarter of it are compacted.")),
    COMPACTION_INTERVAL_MS(integer(Limits.JOB_INTERVAL_MS_MIN, Limits.JOB_INTERVAL_MS_MAX)
            .sets(
                    millis(MaintenanceConfig::compactionInterval),
                    (c, v) -> c.withCompaction(
                            Duration.ofMillis(v),
                            c.compactionTargetBytes(),
                            c.compactionSmallObjectBytes(),
                            c.compactionMinAge()),
                    "")
            .doc("Pause between compaction runs.")),
    KEY_COMPACTION_INTERVAL_MS(integer(Limits.JOB_INTERVAL_MS_MIN, Limits.JOB_INTERVAL_MS_MAX)
            .sets(
                    millis(MaintenanceConfig::keyCompactionInterval),
                    (c, v) -> c.withKeyCompaction(Duration.ofMillis(v), c.keyCompactionBufferBytes()),
                    "")
            .doc("Pause between key compaction runs, which keep the newest record per key of topics with"
                    + " `cleanup.policy=compact`.")),
    KEY_COMPACTION_BUFFER_BYTES(integer(MaintenanceConfig.KEY_COMPACTION_BUFFER_BYTES_MIN, 1L << 30)
            .sets(
                    MaintenanceConfig::keyCompactionBufferBytes,
                    (c, v) -> c.withKeyCompaction(c.keyCompactionInterval(), v.intValue()),
                    "(16 MiB, about 630000 keys)")
            .doc("Memory of key compaction's key-to-offset map, 24 bytes a key: a pass over a partition cleans as"
                    + " many dirty records as the map holds keys (Kafka's `log.cleaner.dedupe.buffer.size`).")),
    RETENTION_CHECK_INTERVAL_MS(integer(Limits.JOB_INTERVAL_MS_MIN, Limits.JOB_INTERVAL_MS_MAX)
            .sets(
                    millis(MaintenanceConfig::retentionInterval),
                    (c, v) -> c.withRetentionInterval(Duration.ofMillis(v)),
                    "")
            .doc("Pause between retention runs, which apply `retention.ms` and `retention.bytes`.")),
    OBJECT_DELETE_DELAY_MS(integer(0, Limits.DELAY_MS_MAX)
            .sets(
                    millis(MaintenanceConfig::objectDeleteDelay),
                    (c, v) -> c.withCleanup(c.cleanupInterval(), Duration.ofMillis(v), c.orphanGrace()),
                    "")
            .doc("How long an object that lost its last reference stays readable, for fetches already planned"
                    + " (Kafka's `file.delete.delay.ms`).")),
    ORPHAN_GRACE_MS(integer(Limits.ORPHAN_GRACE_MS_MIN, Limits.DELAY_MS_MAX)
            .sets(
                    millis(MaintenanceConfig::orphanGrace),
                    (c, v) -> c.withCleanup(c.cleanupInterval(), c.objectDeleteDelay(), Duration.ofMillis(v)),
                    "")
            .doc("Age at which an upload that was never committed is deleted; agents register object keys up to a"
                    + " minute before uploading, and an S3 upload may retry for two.")),
    PRODUCER_ID_EXPIRATION_MS(integer(Limits.PRODUCER_ID_EXPIRATION_MS_MIN, Limits.EXPIRATION_MS_MAX)
            .sets(
                    millis(MaintenanceConfig::producerIdExpiration),
                    (c, v) -> c.withProducerIdExpiration(Duration.ofMillis(v)),
                    "(1 day)")
            .doc("How long an idle idempotent producer's state on a partition is kept after its last write there"
                    + " (Kafka's `producer.id.expiration.ms`); well above the clients' `delivery.timeout.ms`.")),
    TRANSACTIONAL_ID_EXPIRATION_MS(integer(Limits.TRANSACTIONAL_ID_EXPIRATION_MS_MIN, Limits.EXPIRATION_MS_MAX)
            .sets(
                    millis(MaintenanceConfig::transactionalIdExpiration),
                    (c, v) -> c.withTransactionalIdExpiration(Duration.ofMillis(v)),
                    "(7 days)")
            .doc("How long a transactional id with no open transaction is kept after its last change (Kafka's"
                    + " `transactional.id.expiration.ms`); its producer is refused after that and starts afresh.")),
    TABLEFLOW(bool().byDefault(true)
            .doc("Materialize topics with `floe.tableflow.enabled=true` as Iceberg tables in the object store,"
                    + " cataloged in the metadata database; agents take turns per table through leases.")
            .shows(AgentSettings::tableflow)),
    TABLEFLOW_LEASE_MS(integer(100, Integer.MAX_VALUE)
            .byDefault(TableflowConfig.DEFAULT_LEASE_TTL.toMillis())
            .doc("How long an agent's lease on a table lasts without renewal: a table whose agent died moves to"
                    + " another agent within it.")
            .shows(s -> s.tableflowLease().toMillis())),
    TABLEFLOW_STALL_TIMEOUT_MS(integer(Limits.TABLEFLOW_STALL_TIMEOUT_MS_MIN, Limits.DELAY_MS_MAX)
            .byDefault(TableflowConfig.DEFAULT_STALL_TIMEOUT.toMillis(), "(1 hour)")
            .doc("How long a table's rounds may keep failing (an incompatible schema, a broken catalog) before it is"
                    + " reported stalled (log, metric, `floe tables describe`) and stops holding back retention.")
            .shows(s -> s.tableflowStallTimeout().toMillis())),
    TABLEFLOW_UPSERT_INDEX_BYTES(integer(0, Limits.TABLEFLOW_UPSERT_INDEX_BYTES_MAX)
            .byDefault(TableflowConfig.DEFAULT_UPSERT_INDEX_BYTES, "(256 MiB, about 1.6 million keys of 16 bytes)")
            .doc("Heap the key indexes of the agent's upsert tables may take together, about 160 bytes a key of 16"
                    + " bytes, shared fairly between the tables; a table whose index does not fit looks its keys up"
                    + " in its files instead. Keep it to about a quarter of the heap (`-Xmx`).")
            .shows(AgentSettings::tableflowUpsertIndexBytes)),
    TABLEFLOW_CHANGES_HOLD_TIMEOUT_MS(integer(Limits.TABLEFLOW_STALL_TIMEOUT_MS_MIN, Limits.EXPIRATION_MS_MAX)
            .byDefault(ChangeStreamConfig.DEFAULT_HOLD_TIMEOUT.toMillis(), "(1 day)")
            .doc("How long an upsert table's change topic may stay behind its table without publishing (failing, or"
                    + " halted on a range it cannot replay) before it stops holding back the source topic's"
                    + " retention and snapshot expiry (log, `floe_tableflow_changes_stream_hold_released_total`);"
                    + " `floe_tableflow_changes_stream_stalled_seconds` shows how long one has been stuck.")
            .shows(s -> s.changesHoldTimeout().toMillis()));

    /** Defaults that the resolver or the start-up line use as well. */
    static final class Defaults {
        static final String LISTEN = new HostPort(
                        AgentConfig.defaults().advertisedHost(),
                        AgentConfig.defaults().advertisedPort())
                .toString();
        static final String NODE_ID = "allocated";
        private static final String CHAIN = "(default chain)";

        private Defaults() {}
    }

    /** Limits that need a reason. */
    static final class Limits {
        static final long JOB_INTERVAL_MS_MIN = 1_000;
        static final long JOB_INTERVAL_MS_MAX = 86_400_000; // a day
        static final long DELAY_MS_MAX = 604_800_000; // a week
        /**
         * The agent registers object keys up to 60 s before it uploads under them, and an S3 upload may
         * take 2 minutes with its retries: a shorter grace would expire registrations still in use, and
         * their commits would be refused.
         */
        static final long ORPHAN_GRACE_MS_MIN = 300_000;
        /** Well above the clients' delivery.timeout.ms (2 minutes by default): retries older than this are not recognized. */
        static final long PRODUCER_ID_EXPIRATION_MS_MIN = 600_000;

        /** An id in use between its transactions must not be forgotten: they are minutes apart at most. */
        static final long TRANSACTIONAL_ID_EXPIRATION_MS_MIN = 3_600_000;

        static final long EXPIRATION_MS_MAX = 31_536_000_000L; // 365 days
        /** Below a minute a table would be given up on during an ordinary catalog or store outage. */
        static final long TABLEFLOW_STALL_TIMEOUT_MS_MIN = 60_000;
        /** A terabyte: far beyond any heap this runs in, below an overflow of the estimates it bounds. */
        static final long TABLEFLOW_UPSERT_INDEX_BYTES_MAX = 1L << 40;

        private Limits() {}
    }

    private final Declaration declaration;

    Setting(Declaration declaration) {
        this.declaration = declaration;
    }

    Declaration declaration() {
        return declaration;
    }

    /** The config-file key, e.g. {@code flush-interval-ms}. */
    String key() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The command-line flag, e.g. {@code --flush-interval-ms}. */
    String flag() {
        return "--" + key();
    }

    /** The environment variable, e.g. {@code FLOE_FLUSH_INTERVAL_MS}. */
    String envVar() {
        return "FLOE_" + name();
    }

    /** The built-in default; empty when the default is derived from other settings. */
    Optional<String> defaultValue() {
        return declaration.defaultValue() instanceof Declaration.Default.Value value
                ? Optional.of(value.text())
                : Optional.empty();
    }

    /** True for a credential, whose value is shown as {@code ****}. */
    boolean secret() {
        return declaration.secret();
    }

    /** The option's description in {@code --help}: the documentation, the limits, the default. */
    String help() {
        return plain(sentence(declaration.doc()) + " Default: "
                + declaration.defaultValue().doc() + ".");
    }

    /** This setting's row of the README.md table. */
    String readmeRow() {
        String flag = flag() + " "
                + (declaration.kind() instanceof Declaration.Kind.Bool
                        ? "[" + declaration.kind().label() + "]"
                        : declaration.kind().label());
        String meaning = sentence(declaration.doc());
        return row(
                "`" + flag + "`",
                "`" + envVar() + "`",
                declaration.defaultValue().doc(),
                meaning.substring(0, meaning.length() - 1));
    }

    /** A row of a Markdown table; a {@code |} in a cell is escaped. */
    static String row(String... cells) {
        return Arrays.stream(cells)
                .map(cell -> cell.replace("|", "\\|"))
                .collect(Collectors.joining(" | ", "| ", " |"));
    }

    /** The documentation with the limits, ending in a period. */
    private String sentence(String doc) {
        String limits = declaration.kind().limits();
        String body = doc.endsWith(".") ? doc.substring(0, doc.length() - 1) : doc;
        return (limits.isEmpty() ? body : body + "; " + limits) + ".";
    }

    private static String plain(String markdown) {
        return markdown.replace("`", "");
    }

    /** Every setting's effective value as {@code key=value}, for the start-up line; secrets show as {@code ****}. */
    static String describe(AgentSettings settings) {
        return Arrays.stream(values())
                .map(setting ->
                        setting.key() + "=" + setting.declaration.shown().apply(settings))
                .collect(Collectors.joining(" "));
    }

    /** The README.md table of the settings, one row each (the {@code --config} row is the command's). */
    static String readmeTable() {
        return Arrays.stream(values()).map(Setting::readmeRow).collect(Collectors.joining("\n"));
    }

    static Optional<Setting> byKey(String key) {
        return Arrays.stream(values())
                .filter(setting -> setting.key().equals(key))
                .findFirst();
    }
}
