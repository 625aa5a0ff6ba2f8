package io.floe.core.config;

/** The value type of a config, as Kafka's DescribeConfigs reports it. */
public enum ConfigType {
    BOOLEAN,
    STRING,
    INT,
    SHORT,
    LONG,
    DOUBLE,
    LIST,
    CLASS,
    PASSWORD
}
