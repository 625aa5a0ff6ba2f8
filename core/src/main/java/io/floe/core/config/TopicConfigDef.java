package io.floe.core.config;

import java.util.List;
import java.util.Set;

/**
 * The definition of one topic config: its type, default, accepted values and, for numbers, the range
 * Kafka accepts ({@code atLeast}, {@code between}).
 *
 * @param min the smallest value accepted (numbers only; {@code null} for none)
 * @param max the largest value accepted (numbers only; {@code null} for none)
 */
record TopicConfigDef(
        String name,
        ConfigType type,
        String defaultValue,
        Set<String> allowed,
        Double min,
        Double max,
        String documentation) {

    TopicConfigDef(String name, ConfigType type, String defaultValue, Set<String> allowed, String documentation) {
        this(name, type, defaultValue, allowed, null, null, documentation);
    }

    TopicConfigDef(String name, ConfigType type, String defaultValue, String documentation) {
        this(name, type, defaultValue, Set.of(), null, null, documentation);
    }

    /** A number of at least {@code min}, as Kafka's {@code Range.atLeast}. */
    static TopicConfigDef atLeast(String name, ConfigType type, String defaultValue, double min, String documentation) {
        return new TopicConfigDef(name, type, defaultValue, Set.of(), min, null, documentation);
    }

    /** A number from {@code min} to {@code max}, as Kafka's {@code Range.between}. */
    static TopicConfigDef between(
            String name, ConfigType type, String defaultValue, double min, double max, String documentation) {
        return new TopicConfigDef(name, type, defaultValue, Set.of(), min, max, documentation);
    }

    void validate(String value) {
        if (value == null) {
            throw new InvalidConfigException("Null value not supported for topic config " + name);
        }
        double number = 0;
        try {
            switch (type) {
                case INT -> number = Integer.parseInt(value.trim());
                case LONG -> number = Long.parseLong(value.trim());
                case DOUBLE -> number = Double.parseDouble(value.trim());
                case BOOLEAN -> {
                    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                        throw new NumberFormatException("not a boolean");
                    }
                }
                default -> {}
            }
        } catch (NumberFormatException e) {
            throw new InvalidConfigException("Invalid value " + value + " for configuration " + name + ": expected a "
                    + type.name().toLowerCase());
        }
        if (min != null && number < min) {
            throw new InvalidConfigException(
                    "Invalid value " + value + " for configuration " + name + ": Value must be at least " + show(min));
        }
        if (max != null && number > max) {
            throw new InvalidConfigException("Invalid value " + value + " for configuration " + name
                    + ": Value must be no more than " + show(max));
        }
        if (!allowed.isEmpty()) {
            List<String> items = type == ConfigType.LIST ? List.of(value.split("\\s*,\\s*")) : List.of(value);
            for (String item : items) {
                if (!allowed.contains(item)) {
                    throw new InvalidConfigException(
                            "Invalid value " + value + " for configuration " + name + ": must be one of " + allowed);
                }
            }
        }
    }

    private String show(double bound) {
        return type == ConfigType.DOUBLE ? Double.toString(bound) : Long.toString((long) bound);
    }
}
