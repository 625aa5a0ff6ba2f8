package io.floe.cli.agent;

import io.floe.agent.AgentConfig;
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
import java.util.stream.Collectors;

/**
 * Turns flags, environment and config file into {@link AgentSettings}: a pure function of its three
 * inputs. For each setting the flag wins over the environment variable, which wins over the config
 * file, which wins over the default. Every value is validated; an
 * {@link InvalidSettingException} names the setting, the value and where it came from (a secret's
 * value shows as {@code ****}, a PostgreSQL URL's password too).
 */
final class SettingsResolver {

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

    /** The S3 options from flags alone, for commands other than {@code floe agent}. */
    static S3Options s3Options(Map<Setting, String> flags) {
        return new SettingsResolver(flags, Map.of(), ConfigFile.NONE).s3Options();
    }

    private AgentSettings settings() {
        HostPort listen = hostPort(Setting.LISTEN);
        HostPort advertise = advertise(listen);
        Path dataDir = directory(Setting.DATA_DIR);
        S3Options s3 = s3Options();
        String objectsUrl = objectsUrl(dataDir, s3);
        return new AgentSettings(
                listen,
                hostPort(Setting.HTTP_LISTEN),
                dataDir,
                agentConfig(advertise, objectsUrl),
                metadataUrl(dataDir),
                objectsUrl,
                s3,
                bool(Setting.MAINTENANCE),
                maintenanceConfig(),
                bool(Setting.TABLEFLOW),
                Duration.ofMillis(integer(Setting.TABLEFLOW_LEASE_MS)),
                Duration.ofMillis(integer(Setting.TABLEFLOW_STALL_TIMEOUT_MS)),
                integer(Setting.TABLEFLOW_UPSERT_INDEX_BYTES),
                Duration.ofMillis(integer(Setting.TABLEFLOW_CHANGES_HOLD_TIMEOUT_MS)));
    }

    /** A typo in a config file would otherwise silently leave a setting at its default. */
    private void rejectUnknownFileKeys() {
        for (String key : file.values().keySet()) {
            if (Setting.byKey(key).isEmpty()) {
                String known = Arrays.stream(Setting.values()).map(Setting::key).collect(Collectors.joining(", "));
                throw new InvalidSettingException(
                        "unknown setting '" + key + "' in config file " + file.name() + " (known: " + known + ")");
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
        HostPort advertise = hostPort(given.get());
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
        return new S3Options(endpoint, text(Setting.S3_REGION), bool(Setting.S3_PATH_STYLE), credentials());
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
        if (scheme == null
                || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.getHost() == null
                || uri.getUserInfo() != null
                || uri.getRawQuery() != null
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
     * The agent's configuration but its agent id: the node id and the advertised address, then each
     * setting that names a field sets it, in declaration order; the rest keep {@link AgentConfig#defaults()}.
     */
    private AgentConfig agentConfig(HostPort advertise, String objectsUrl) {
        AgentConfig defaults = AgentConfig.defaults();
        AgentConfig config =
                defaults.withIdentity(nodeId(), defaults.agentId()).withAdvertised(advertise.host(), advertise.port());
        for (Setting setting : Setting.values()) {
            Declaration.AgentField field = setting.declaration().agent();
            if (field != null) {
                Value value = resolved(setting, objectsUrl);
                try {
                    config = field.set().apply(config, parsed(value));
                } catch (IllegalArgumentException e) {
                    throw value.invalid(e.getMessage()); // AgentConfig's own check, should it be stricter
                }
            }
        }
        return config;
    }

    /** A value as its kind takes it: a {@link Long}, a {@link Boolean} or a {@link String}. */
    private static Object parsed(Value value) {
        Declaration.Kind kind = value.setting().declaration().kind();
        if (kind instanceof Declaration.Kind.Int) {
            return integer(value);
        }
        if (kind instanceof Declaration.Kind.Bool) {
            return bool(value);
        }
        if (kind instanceof Declaration.Kind.Text) {
            return text(value);
        }
        throw new IllegalStateException(value.setting() + " is an address: it sets no AgentConfig field");
    }

    /** The background jobs' configuration: each setting that names a field sets it; the rest keep their defaults. */
    private MaintenanceConfig maintenanceConfig() {
        MaintenanceConfig config = MaintenanceConfig.DEFAULTS;
        for (Setting setting : Setting.values()) {
            Declaration.MaintenanceField field = setting.declaration().maintenance();
            if (field != null) {
                config = field.set().apply(config, integer(setting));
            }
        }
        return config;
    }

    private HostPort hostPort(Setting setting) {
        return hostPort(required(setting));
    }

    private static HostPort hostPort(Value value) {
        int minPort = ((Declaration.Kind.Address) value.setting().declaration().kind()).minPort();
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

    /**
     * The given value, or the default; a setting with a default per kind of object store (the flushes': on
     * S3 every flush is a PUT) takes that of {@code objectsUrl}'s.
     */
    private Value resolved(Setting setting, String objectsUrl) {
        if (setting.declaration().defaultValue() instanceof Declaration.Default.ByObjectStore defaults) {
            return lookup(setting).orElseGet(() -> new Value(setting, defaults.forObjects(objectsUrl), "default"));
        }
        return required(setting);
    }

    /** A broker id, or {@value Setting.Defaults#NODE_ID}: the metadata store allocates a free one at start. */
    private int nodeId() {
        Value value = required(Setting.NODE_ID);
        if (value.text().equalsIgnoreCase(Setting.Defaults.NODE_ID)) {
            return NodeIds.ALLOCATED;
        }
        try {
            return (int) integer(value);
        } catch (InvalidSettingException e) {
            throw value.invalid(
                    "expected an integer from 0 to " + Integer.MAX_VALUE + ", or " + Setting.Defaults.NODE_ID);
        }
    }

    private long integer(Setting setting) {
        return integer(required(setting));
    }

    /** An integer within the setting's limits. */
    private static long integer(Value value) {
        Declaration.Kind.Int kind =
                (Declaration.Kind.Int) value.setting().declaration().kind();
        return integer(value, kind.min(), kind.max());
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

    /** Text, matching the setting's pattern when it has one. */
    private String text(Setting setting) {
        return text(required(setting));
    }

    private static String text(Value value) {
        Declaration.Kind.Text kind =
                (Declaration.Kind.Text) value.setting().declaration().kind();
        if (kind.pattern() != null && !kind.pattern().matcher(value.text()).matches()) {
            throw value.invalid(kind.expectation());
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
