package io.floe.cli.agent;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns flags, environment and config file into {@link AgentSettings}: a pure function of its three
 * inputs. For each setting the flag wins over the environment variable, which wins over the config
 * file, which wins over the default. Every value is validated; an
 * {@link InvalidSettingException} names the setting, the value and where it came from.
 */
final class SettingsResolver {

    private static final Pattern CLUSTER_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final int FLUSH_INTERVAL_MS_MAX = 60_000;
    private static final long FLUSH_MAX_BYTES_MAX = 1L << 30;

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
        return new AgentSettings(
                listen,
                advertise,
                hostPort(Setting.HTTP_LISTEN, 0),
                directory(Setting.DATA_DIR),
                (int) integer(Setting.FLUSH_INTERVAL_MS, 1, FLUSH_INTERVAL_MS_MAX),
                integer(Setting.FLUSH_MAX_BYTES, 1024, FLUSH_MAX_BYTES_MAX),
                integer(Setting.CACHE_BYTES, 0, Long.MAX_VALUE),
                (int) integer(Setting.NODE_ID, 0, Integer.MAX_VALUE),
                clusterId(Setting.CLUSTER_ID),
                bool(Setting.AUTO_CREATE_TOPICS),
                (int) integer(Setting.DEFAULT_PARTITIONS, 1, Integer.MAX_VALUE),
                (int) integer(Setting.MAX_MESSAGE_BYTES, 1024, Integer.MAX_VALUE));
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

    private long integer(Setting setting, long min, long max) {
        Value value = required(setting);
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
        Value value = required(setting);
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
            String from = origin == null ? "" : " (from " + origin + ")";
            return new InvalidSettingException(
                    "invalid value '" + text + "' for " + setting.flag() + from + ": " + expectation);
        }
    }
}
