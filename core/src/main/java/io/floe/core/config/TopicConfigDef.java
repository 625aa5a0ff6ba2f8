package io.floe.core.config;

import java.util.List;
import java.util.Set;

/** The definition of one topic config: its type, default and accepted values. */
record TopicConfigDef(String name, ConfigType type, String defaultValue, Set<String> allowed, String documentation) {

    TopicConfigDef(String name, ConfigType type, String defaultValue, String documentation) {
        this(name, type, defaultValue, Set.of(), documentation);
    }

    void validate(String value) {
        if (value == null) {
            throw new InvalidConfigException("Null value not supported for topic config " + name);
        }
        try {
            switch (type) {
                case INT -> Integer.parseInt(value.trim());
                case LONG -> Long.parseLong(value.trim());
                case DOUBLE -> Double.parseDouble(value.trim());
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
}
