package io.floe.tableflow.config;

import java.util.Locale;

/** How a topic's record values become table columns. */
public enum ValueFormat {
    /** Avro binary with the schema given in the topic config. */
    AVRO,
    /** JSON text checked against the JSON Schema given in the topic config. */
    JSON,
    /** The value bytes as they are, in one binary column. */
    RAW;

    static ValueFormat parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid value " + text + " for configuration " + TableflowConfigs.FORMAT
                    + ": must be avro, json or raw");
        }
    }
}
