package io.floe.tableflow.config;

import java.util.Locale;

/** How the table is partitioned: by a time transform of the record timestamp, or not at all. */
public enum Partitioning {
    NONE,
    DAY,
    HOUR;

    static Partitioning parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid value " + text + " for configuration "
                    + TableflowConfigs.PARTITIONING + ": must be none, day or hour");
        }
    }
}
