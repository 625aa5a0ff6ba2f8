package io.floe.cli.agent;

import io.floe.agent.AgentConfig;
import io.floe.maintenance.MaintenanceConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;

/**
 * Everything about one {@link Setting} but its name: what values it takes, its default, its
 * documentation (Markdown: {@code `code`} is shown without the backticks in {@code --help}), how the
 * start-up line shows its effective value, and which {@link AgentConfig} or {@link MaintenanceConfig}
 * field it sets. Built with the static methods and withers below, one expression per setting.
 *
 * @param kind what values the setting takes
 * @param defaultValue used when no flag, variable or file gives a value
 * @param doc one or two sentences for {@code --help} and README.md
 * @param secret a credential: its value is never shown
 * @param shown the effective value for the start-up line
 * @param maintenance the {@link MaintenanceConfig} field an integer setting sets, or {@code null}
 * @param agent the {@link AgentConfig} field the setting sets, or {@code null}
 */
record Declaration(
        Kind kind,
        Default defaultValue,
        String doc,
        boolean secret,
        Function<AgentSettings, Object> shown,
        MaintenanceField maintenance,
        AgentField agent) {

    Declaration {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(doc, "doc");
        Objects.requireNonNull(shown, "shown");
    }

    /** An integer from {@code min} to {@code max}. */
    static Declaration integer(long min, long max) {
        return of(new Kind.Int(min, max));
    }

    /** {@code true} or {@code false}; a flag without a value means {@code true}. */
    static Declaration bool() {
        return of(new Kind.Bool());
    }

    /** A {@code HOST:PORT} whose port is at least {@code minPort}. */
    static Declaration address(int minPort) {
        return of(new Kind.Address(minPort));
    }

    /** Text that the resolver checks itself, shown in {@code --help} as {@code label}. */
    static Declaration text(String label) {
        return of(new Kind.Text(label, null, null));
    }

    /** Text matching {@code pattern}; {@code expectation} says what it should be. */
    static Declaration text(String label, Pattern pattern, String expectation) {
        return of(new Kind.Text(label, pattern, expectation));
    }

    private static Declaration of(Kind kind) {
        return new Declaration(kind, new Default.Derived("none"), "", false, settings -> "", null, null);
    }

    Declaration byDefault(Object value) {
        return withDefault(new Default.Value(String.valueOf(value), ""));
    }

    /** A default and a note for the documentation, such as "(64 MiB)". */
    Declaration byDefault(Object value, String note) {
        return withDefault(new Default.Value(String.valueOf(value), " " + note));
    }

    /** No fixed default: the resolver derives one; {@code doc} says how. */
    Declaration derivedDefault(String doc) {
        return withDefault(new Default.Derived(doc));
    }

    /** Different defaults for {@code file:} and {@code s3:} object stores. */
    Declaration byObjectStore(Object file, Object s3) {
        return withDefault(new Default.ByObjectStore(String.valueOf(file), String.valueOf(s3)));
    }

    /** The {@link MaintenanceConfig} field of this setting; its default is {@link MaintenanceConfig#DEFAULTS}'. */
    Declaration sets(
            ToLongFunction<MaintenanceConfig> get,
            BiFunction<MaintenanceConfig, Long, MaintenanceConfig> set,
            String note) {
        long value = get.applyAsLong(MaintenanceConfig.DEFAULTS);
        return new Declaration(
                kind,
                new Default.Value(Long.toString(value), note.isEmpty() ? "" : " " + note),
                doc,
                secret,
                settings -> get.applyAsLong(settings.maintenanceConfig()),
                new MaintenanceField(set),
                agent);
    }

    /**
     * The {@link AgentConfig} field of an integer setting: the resolver applies {@code set} to the
     * config with the setting's value. Its default is {@code get} of {@link AgentConfig#defaults()}
     * ({@code note} follows it in the docs; a later {@link #byObjectStore} replaces it), and the
     * start-up line shows {@code get} of the resolved config.
     */
    Declaration configures(
            ToLongFunction<AgentConfig> get, BiFunction<AgentConfig, Long, AgentConfig> set, String note) {
        return configures(Kind.Int.class, get::applyAsLong, (config, value) -> set.apply(config, (Long) value), note);
    }

    /** As {@link #configures}, for a boolean setting. */
    Declaration configuresBool(Predicate<AgentConfig> get, BiFunction<AgentConfig, Boolean, AgentConfig> set) {
        return configures(Kind.Bool.class, get::test, (config, value) -> set.apply(config, (Boolean) value), "");
    }

    /** As {@link #configures}, for a text setting; a value must match the kind's pattern, if any. */
    Declaration configuresText(Function<AgentConfig, String> get, BiFunction<AgentConfig, String, AgentConfig> set) {
        return configures(Kind.Text.class, get::apply, (config, value) -> set.apply(config, (String) value), "");
    }

    private Declaration configures(
            Class<? extends Kind> expected,
            Function<AgentConfig, Object> get,
            BiFunction<AgentConfig, Object, AgentConfig> set,
            String note) {
        if (!expected.isInstance(kind)) {
            throw new IllegalStateException("a " + kind.getClass().getSimpleName() + " setting cannot set an "
                    + expected.getSimpleName() + " field of AgentConfig");
        }
        Object value = get.apply(AgentConfig.defaults());
        return new Declaration(
                kind,
                new Default.Value(String.valueOf(value), note.isEmpty() ? "" : " " + note),
                doc,
                secret,
                settings -> get.apply(settings.agentConfig()),
                maintenance,
                new AgentField(set));
    }

    Declaration doc(String text) {
        return new Declaration(kind, defaultValue, text, secret, shown, maintenance, agent);
    }

    Declaration asSecret() {
        return new Declaration(kind, defaultValue, doc, true, shown, maintenance, agent);
    }

    Declaration shows(Function<AgentSettings, Object> effective) {
        return new Declaration(kind, defaultValue, doc, secret, effective, maintenance, agent);
    }

    private Declaration withDefault(Default value) {
        return new Declaration(kind, value, doc, secret, shown, maintenance, agent);
    }

    /** Milliseconds of a {@link Duration} field, for {@link #sets} and {@link #configures}. */
    static <C> ToLongFunction<C> millis(Function<C, Duration> field) {
        return config -> field.apply(config).toMillis();
    }

    /** What values a setting takes. */
    sealed interface Kind {

        /** The placeholder of the value in {@code --help} and README.md. */
        String label();

        /** Limits for the documentation, such as "at least 300000, at most 604800000"; empty for none. */
        default String limits() {
            return "";
        }

        record Int(long min, long max) implements Kind {
            @Override
            public String label() {
                return "N";
            }

            /** A bound at the end of its type's range is no limit worth telling. */
            @Override
            public String limits() {
                boolean low = min > 0;
                boolean high = max != Integer.MAX_VALUE && max != Long.MAX_VALUE;
                if (low && high) {
                    return "at least " + min + ", at most " + max;
                }
                return low ? "at least " + min : high ? "at most " + max : "";
            }
        }

        record Bool() implements Kind {
            @Override
            public String label() {
                return "true|false";
            }
        }

        record Address(int minPort) implements Kind {
            @Override
            public String label() {
                return "HOST:PORT";
            }
        }

        /** Free text; when {@code pattern} is set a value must match it, else the resolver checks it. */
        record Text(String label, Pattern pattern, String expectation) implements Kind {}
    }

    /** Where a setting's value comes from when none is given. */
    sealed interface Default {

        /** For {@code --help} and README.md, in Markdown. */
        String doc();

        /** A fixed value, parsed like a given one; {@code note} (with its leading space) follows it in the docs. */
        record Value(String text, String note) implements Default {
            @Override
            public String doc() {
                return "`" + text + "`" + note;
            }
        }

        /** None: the resolver derives the value from other settings, as {@code doc} says. */
        record Derived(String doc) implements Default {}

        /** One value for {@code file:} object stores, another for {@code s3:}, where each object is a PUT. */
        record ByObjectStore(String file, String s3) implements Default {
            @Override
            public String doc() {
                return "`" + file + "` for `file:` objects, `" + s3 + "` for `s3:`";
            }

            String forObjects(String objectsUrl) {
                return objectsUrl.startsWith("s3:") ? s3 : file;
            }
        }
    }

    /** How an integer setting changes a {@link MaintenanceConfig}. */
    record MaintenanceField(BiFunction<MaintenanceConfig, Long, MaintenanceConfig> set) {}

    /**
     * How a setting's value changes an {@link AgentConfig}: a {@link Long} for an integer setting, a
     * {@link Boolean} for a boolean one, a {@link String} for text.
     */
    record AgentField(BiFunction<AgentConfig, Object, AgentConfig> set) {}
}
