package io.floe.benchmarks.tableflow;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** What a table is asked to be: append or upsert, with or without a Delta log. */
record Variant(String mode, boolean delta) {

    Variant {
        if (!mode.equals("append") && !mode.equals("upsert")) {
            throw new IllegalArgumentException("mode is append or upsert, not " + mode);
        }
    }

    /** {@code append}, {@code append+delta}, {@code upsert} or {@code upsert+delta}. */
    static Variant parse(String text) {
        String[] parts = text.trim().toLowerCase(Locale.ROOT).split("\\+");
        if (parts.length > 2 || parts.length == 2 && !parts[1].equals("delta")) {
            throw new IllegalArgumentException("a variant is append, append+delta, upsert or upsert+delta, not " + text);
        }
        return new Variant(parts[0], parts.length == 2);
    }

    /** The topic configs that turn Tableflow on for this variant. */
    Map<String, String> configs(long commitIntervalMs) {
        Map<String, String> configs = new HashMap<>(Map.of(
                "floe.tableflow.enabled", "true",
                "floe.tableflow.format", "json",
                "floe.tableflow.schema", EventRecords.SCHEMA,
                "floe.tableflow.commit.interval.ms", Long.toString(commitIntervalMs),
                "floe.tableflow.mode", mode));
        if (delta) {
            configs.put("floe.tableflow.delta.enabled", "true");
        }
        return configs;
    }

    @Override
    public String toString() {
        return delta ? mode + "+delta" : mode;
    }
}
