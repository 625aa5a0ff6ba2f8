package io.floe.core.config;

/** Where a config value comes from, as Kafka reports it. */
public enum ConfigSource {
    /** Set on the topic itself. */
    TOPIC_OVERRIDE,
    /** Set in the agent's own configuration (flags, environment, config file). */
    STATIC_AGENT,
    /** Nobody set it: the built-in default. */
    DEFAULT
}
