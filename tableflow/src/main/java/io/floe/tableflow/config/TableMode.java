package io.floe.tableflow.config;

import java.util.Locale;

/**
 * What a table holds of its topic: every record ({@code append}), or the newest row of each record
 * key, a tombstone (null value) deleting the key's row ({@code upsert}).
 */
public enum TableMode {
    APPEND,
    UPSERT;

    /** The name in topic configs and table properties. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static TableMode parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid value " + text + " for configuration " + TableflowConfigs.MODE
                    + ": must be append or upsert");
        }
    }
}
