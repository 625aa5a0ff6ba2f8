package io.floe.core.config;

/** One config as DescribeConfigs shows it: value, where the value comes from, and its type. */
public record ConfigEntry(
        String name,
        String value,
        ConfigSource source,
        ConfigType type,
        boolean readOnly,
        boolean sensitive,
        String documentation) {}
