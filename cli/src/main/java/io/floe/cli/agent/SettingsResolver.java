package io.floe.cli.agent;

import io.floe.agent.cluster.NodeIds;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.objectstore.s3.S3ObjectStoreConfig.StaticCredentials;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns flags, environment and config file into {@link AgentSettings}: a pure function of its three
 * inputs. For each setting the flag wins over the environment variable, which wins over the config
 * file, which wins over the default. Every value is validated; an
 * {@link InvalidSettingException} names the setting, the value and where it came from (a secret's
 * value shows as {@code ****}, a PostgreSQL URL's password too).
 */
final class SettingsResolver {

    private static final Pattern CLUSTER_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final int FLUSH_INTERVAL_MS_MAX = 60_000;
    private static final long FLUSH_MAX_BYTES_MAX = 1L << 30;
    private static final Pattern S3_REGION = Pattern.compile("[A-Za-z0-9_-]+");
    private static final long COMPACTION_TARGET_BYTES_MAX = 1L << 30;
    private static final long KEY_COMPACTION_BUFFER_BYTES_MAX = 1L << 30;
    private static final long JOB_INTERVAL_MS_MIN = 1_000;
    private static final long JOB_INTERVAL_MS_MAX = Duration.ofDays(1).toMillis();
    private static final long DELAY_MS_MAX = Duration.ofDays(7).toMillis();
    /**
     * The agent registers object keys up to 60 s before it uploads under them, and an S3 upload may
     * take 2 minutes with its retries: a shorter grace would expire registrations still in use, and
     * their commits would be refused.
     */
    static final long ORPHAN_GRACE_MS_MIN = 300_000;
    /** Well above the clients' delivery.timeout.ms (2 minutes by default): retries older than this are not recognized. */
    static final long PRODUCER_ID_EXPIRATION_MS_MIN = 600_000;
    /** Below a minute a table would be given up on during an ordinary catalog or store outage. */
    static final long TABLEFLOW_STALL_TIMEOUT_MS_MIN = 60_000;
    private static final long PRODUCER_ID_EXPIRATION_MS_MAX = Duration.ofDays(365).toMillis();

    private final Map<Setting, String> flags;
    private final Map<String, String> env;
    private final ConfigFile file;

    private SettingsResolver(Map<Setting, String> flags, Map<String, String> env, ConfigFile file) {
        this.flags = flags;
        this.env = env;
        this.file = file;
    }

    /**
     * Resolves every setting.
     *
     * @param flags the values given on the command line
     * @param env the process environment (only {@code FLOE_*} variables are read)
     * @param file the config file's values, or {@link ConfigFile#NONE}
     */
    static AgentSettings resolve(Map<Setting, String> flags, Map<String, String> env, ConfigFile file) {
        SettingsResolver resolver = new SettingsResolver(flags, env, file);
        resolver.rejectUnknownFileKeys();
        return resolver.settings();
    }

    private AgentSettings settings() {
        HostPort listen = hostPort(Setting.LISTEN, 1);
        HostPort advertise = advertise(listen);
        Path dataDir = directory(Setting.DATA_DIR);
        S3Options s3 = s3Options();
        String objectsUrl = objectsUrl(dataDir, s3);
        return new AgentSettings(
                listen,
                advertise,
                hostPort(Setting.HTTP_LISTEN, 0),
                dataDir,
                flushIntervalMs(objectsUrl),
                flushMaxBytes(objectsUrl),
                flushWhenProducersWait(objectsUrl),
                integer(Setting.CACHE_BYTES, 0, Long.MAX_VALUE),
                nodeId(),
                clusterId(Setting.CLUSTER_ID),
                bool(Setting.AUTO_CREATE_TOPICS),
                (int) integer(Setting.DEFAULT_PARTITIONS, 1, Integer.MAX_VALUE),
                (int) integer(Setting.MAX_MESSAGE_BYTES, 1024, Integer.MAX_VALUE),
                metadataUrl(dataDir),
                objectsUrl,
                s3,
                bool(Setting.MAINTENANCE),
                maintenanceConfig(),
                bool(Setting.TABLEFLOW),
                Duration.ofMillis(integer(Setting.TABLEFLOW_LEASE_MS, 100, Integer.MAX_VALUE)),
                millis(Setting.TABLEFLOW_STALL_TIMEOUT_MS, TABLEFLOW_STALL_TIMEOUT_MS_MIN, DELAY_MS_MAX));
    }

    /** A typo in a config file would otherwise silently leave a setting at its default. */
    private void rejectUnknownFileKeys() {
        for (String key : file.values().keySet()) {
            if (Setting.byKey(key).isEmpty()) {
                String known = Arrays.stream(Setting.values()).map(Setting::key).collect(Collectors.joining(", "));
                throw new InvalidSettingException("unknown setting '" + key + "' in config file " + file.name()
                        + " (known: " + known + ")");
            }
        }
    }

    /** The advertised address defaults to the listener, which only works when the listener is a real address. */
    private HostPort advertise(HostPort listen) {
        Optional<Value> given = lookup(Setting.ADVERTISE);
        if (given.isEmpty()) {
            if (listen.isWildcard()) {
                throw new InvalidSettingException("--listen " + listen + " binds every interface, so clients need"
                        + " another address to connect to: set --advertise HOST:PORT (or " + Setting.ADVERTISE.envVar()
                        + ")");
            }
            return listen;
        }
        HostPort advertise = hostPort(given.get(), 1);
        if (advertise.isWildcard()) {
            throw given.get().invalid("clients cannot connect to a wildcard address; give this host's name or IP");
        }
        return advertise;
    }

    /** The metadata store URL; by default the embedded SQLite database in the data directory. */
    private String metadataUrl(Path dataDir) {
        Value value = lookup(Setting.METADATA)
                .orElseGet(() -> new Value(Setting.METADATA, "sqlite:" + dataDir.resolve("metadata.db"), "default"));
        try {
            Backends.checkMetadataUrl(value.text());
        } catch (IllegalArgumentException e) {
            throw value.invalid(e.getMessage());
        }
        return value.text();
    }

    /** The object store URL; by default the {@code objects} directory in the data directory. */
    private String objectsUrl(Path dataDir, S3Options s3) {
        Value value = lookup(Setting.OBJECTS)
                .orElseGet(() -> new Value(Setting.OBJECTS, "file:" + dataDir.resolve("objects"), "default"));
        try {
            Backends.checkObjectsUrl(value.text(), s3);
        } catch (IllegalArgumentException e) {
            throw value.invalid(e.getMessage());
        }
        return value.text();
    }

    private S3Options s3Options() {
        Optional<URI> endpoint = lookup(Setting.S3_ENDPOINT).map(SettingsResolver::endpoint);
        Value region = required(Setting.S3_REGION);
        if (!S3_REGION.matcher(region.text()).matches()) {
            throw region.invalid("expected a region name such as us-east-1");
        }
        return new S3Options(endpoint, region.text(), bool(Setting.S3_PATH_STYLE), credentials());
    }

    private static URI endpoint(Value value) {
        String expected = "expected an http:// or https:// URL of scheme, host and port, such as http://127.0.0.1:9000";
        URI uri;
        try {
            uri = new URI(value.text());
        } catch (URISyntaxException e) {
            throw value.invalid(expected);
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.getHost() == null || uri.getUserInfo() != null || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            throw value.invalid(expected);
        }
        return uri;
    }

    /** A static key needs both halves; with neither, the AWS SDK's default chain supplies credentials. */
    private Optional<StaticCredentials> credentials() {
        Optional<Value> id = lookup(Setting.S3_ACCESS_KEY_ID);
        Optional<Value> secret = lookup(Setting.S3_SECRET_ACCESS_KEY);
        if (id.isEmpty() && secret.isEmpty()) {
            return Optional.empty();
        }
        if (id.isEmpty() || secret.isEmpty()) {
            Value given = id.orElseGet(secret::get);
            Setting missing = id.isEmpty() ? Setting.S3_ACCESS_KEY_ID : Setting.S3_SECRET_ACCESS_KEY;
            throw new InvalidSettingException(given.setting().flag() + " is set" + given.from() + " but "
                    + missing.flag() + " is not: set both, or neither to use the AWS SDK's default credential chain");
        }
        for (Value half : List.of(id.get(), secret.get())) {
            if (half.text().isBlank()) {
                throw half.invalid("expected a non-blank value");
            }
        }
        return Optional.of(new StaticCredentials(id.get().text(), secret.get().text()));
    }

    /**
     * The background jobs' configuration. Compaction inputs are objects under a quarter of the
     * target size, the ratio of {@link MaintenanceConfig#DEFAULTS}; what has no setting keeps its default.
     */
    private MaintenanceConfig maintenanceConfig() {
        long targetBytes = integer(Setting.COMPACTION_TARGET_BYTES, 1024, COMPACTION_TARGET_BYTES_MAX);
        MaintenanceConfig defaults = MaintenanceConfig.DEFAULTS;
        return defaults
                .withCompaction(millis(Setting.COMPACTION_INTERVAL_MS, JOB_INTERVAL_MS_MIN, JOB_INTERVAL_MS_MAX),
                        targetBytes, Math.max(1, targetBytes / 4), defaults.compactionMinAge())
                .withKeyCompaction(millis(Setting.KEY_COMPACTION_INTERVAL_MS, JOB_INTERVAL_MS_MIN, JOB_INTERVAL_MS_MAX),
                        (int) integer(Setting.KEY_COMPACTION_BUFFER_BYTES,
                                MaintenanceConfig.KEY_COMPACTION_BUFFER_BYTES_MIN, KEY_COMPACTION_BUFFER_BYTES_MAX))
                .withRetentionInterval(millis(Setting.RETENTION_CHECK_INTERVAL_MS, JOB_INTERVAL_MS_MIN,
                        JOB_INTERVAL_MS_MAX))
                .withCleanup(defaults.cleanupInterval(), millis(Setting.OBJECT_DELETE_DELAY_MS, 0, DELAY_MS_MAX),
                        millis(Setting.ORPHAN_GRACE_MS, ORPHAN_GRACE_MS_MIN, DELAY_MS_MAX))
                .withProducerIdExpiration(millis(Setting.PRODUCER_ID_EXPIRATION_MS, PRODUCER_ID_EXPIRATION_MS_MIN,
                        PRODUCER_ID_EXPIRATION_MS_MAX));
    }

    private Duration millis(Setting setting, long min, long max) {
        return Duration.ofMillis(integer(setting, min, max));
    }

    private HostPort hostPort(Setting setting, int minPort) {
        return hostPort(required(setting), minPort);
    }

    private static HostPort hostPort(Value value, int minPort) {
        HostPort parsed;
        try {
            parsed = HostPort.parse(value.text());
        } catch (IllegalArgumentException e) {
            throw value.invalid(e.getMessage());
        }
        if (parsed.port() < minPort) {
            throw value.invalid("expected a port from " + minPort + " to 65535");
        }
        return parsed;
    }

    private Path directory(Setting setting) {
        Value value = required(setting);
        if (value.text().isEmpty()) {
            throw value.invalid("expected a directory");
        }
        try {
            return Path.of(value.text()).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw value.invalid("not a valid path: " + e.getReason());
        }
    }

    /** Given, or by object store: every flush is an object, and on S3 each costs a PUT. */
    private int flushIntervalMs(String objectsUrl) {
        Optional<Value> given = lookup(Setting.FLUSH_INTERVAL_MS);
        if (given.isEmpty()) {
            return objectsUrl.startsWith("s3:") ? Setting.Defaults.FLUSH_INTERVAL_MS_S3
                    : Setting.Defaults.FLUSH_INTERVAL_MS_FILE;
        }
        return (int) integer(given.get(), 1, FLUSH_INTERVAL_MS_MAX);
    }

    /** Given, or by object store: on S3 a flush sealed by size costs a PUT as well. */
    private long flushMaxBytes(String objectsUrl) {
        Optional<Value> given = lookup(Setting.FLUSH_MAX_BYTES);
        if (given.isEmpty()) {
            return objectsUrl.startsWith("s3:") ? Setting.Defaults.FLUSH_MAX_BYTES_S3
                    : Setting.Defaults.FLUSH_MAX_BYTES_FILE;
        }
        return integer(given.get(), 1024, FLUSH_MAX_BYTES_MAX);
    }

    /** A broker id, or {@value Setting.Defaults#NODE_ID}: the metadata store allocates a free one at start. */
    private int nodeId() {
        Value value = required(Setting.NODE_ID);
        if (value.text().equalsIgnoreCase(Setting.Defaults.NODE_ID)) {
            return NodeIds.ALLOCATED;
        }
        try {
            return (int) integer(value, 0, Integer.MAX_VALUE);
        } catch (InvalidSettingException e) {
            throw value.invalid("expected an integer from 0 to " + Integer.MAX_VALUE + ", or " + Setting.Defaults.NODE_ID);
        }
    }

    private long integer(Setting setting, long min, long max) {
        return integer(required(setting), min, max);
    }

    private static long integer(Value value, long min, long max) {
        long parsed;
        try {
            parsed = Long.parseLong(value.text());
        } catch (NumberFormatException e) {
            throw value.invalid("expected an integer from " + min + " to " + max);
        }
        if (parsed < min || parsed > max) {
            throw value.invalid("expected an integer from " + min + " to " + max);
        }
        return parsed;
    }

    /** Given, or by object store: on S3 each flush sealed early would be one more PUT. */
    private boolean flushWhenProducersWait(String objectsUrl) {
        Optional<Value> given = lookup(Setting.FLUSH_WHEN_PRODUCERS_WAIT);
        return given.isPresent() ? bool(given.get()) : !objectsUrl.startsWith("s3:");
    }

    private boolean bool(Setting setting) {
        return bool(required(setting));
    }

    private static boolean bool(Value value) {
        if (value.text().equalsIgnoreCase("true")) {
            return true;
        }
        if (value.text().equalsIgnoreCase("false")) {
            return false;
        }
        throw value.invalid("expected true or false");
    }

    private String clusterId(Setting setting) {
        Value value = required(setting);
        if (!CLUSTER_ID.matcher(value.text()).matches()) {
            throw value.invalid("expected 1 to 128 letters, digits, '.', '_' or '-'");
        }
        return value.text();
    }

    private Value required(Setting setting) {
        return lookup(setting).orElseThrow(() -> new IllegalStateException(setting + " has no default"));
    }

    /** The value of highest precedence: flag, environment variable, config file, default. */
    private Optional<Value> lookup(Setting setting) {
        String flag = flags.get(setting);
        if (flag != null) {
            return Optional.of(new Value(setting, flag, null));
        }
        String fromEnv = env.get(setting.envVar());
        if (fromEnv != null && !fromEnv.isBlank()) {
            return Optional.of(new Value(setting, fromEnv.trim(), "environment variable " + setting.envVar()));
        }
        String fromFile = file.values().get(setting.key());
        if (fromFile != null) {
            return Optional.of(new Value(setting, fromFile, "config file " + file.name()));
        }
        return setting.defaultValue().map(text -> new Value(setting, text, "default"));
    }

    /** A raw value and its origin ({@code null} for a command-line flag). */
    private record Value(Setting setting, String text, String origin) {

        InvalidSettingException invalid(String expectation) {
            return new InvalidSettingException(
                    "invalid value '" + shown() + "' for " + setting.flag() + from() + ": " + expectation);
        }

        /** Where the value came from, for messages: empty for a flag. */
        String from() {
            return origin == null ? "" : " (from " + origin + ")";
        }

        /** The value as messages may show it. */
        private String shown() {
            if (setting.secret()) {
                return "****";
            }
            return setting == Setting.METADATA ? Backends.redact(text) : text;
        }

        @Override
        public String toString() {
            return setting.key() + "=" + shown() + from();
        }
    }
}
