package io.floe.benchmarks.tableflow;

import java.util.Locale;

/**
 * What a change-topic run ({@link ChangePublication}) publishes: {@code append}, an append table's rows as {@code c}
 * events; {@code upsert}, an upsert table's history replayed ({@code c} and {@code u} events for every record) when
 * its log still holds it; {@code upsert-snapshot}, an upsert table whose log was deleted up to its watermark
 * (DeleteRecords) once materialized, so its history is no longer whole and the change topic starts with Debezium's
 * initial snapshot (an {@code r} event per live row, in one transaction).
 */
record ChangeVariant(Variant table, boolean historyDeleted) {

    static ChangeVariant parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "append" -> new ChangeVariant(new Variant("append", false), false);
            case "upsert" -> new ChangeVariant(new Variant("upsert", false), false);
            case "upsert-snapshot" -> new ChangeVariant(new Variant("upsert", false), true);
            default -> throw new IllegalArgumentException(
                    "a change variant is append, upsert or upsert-snapshot, not " + text);
        };
    }

    @Override
    public String toString() {
        return historyDeleted ? table + "-snapshot" : table.toString();
    }
}
