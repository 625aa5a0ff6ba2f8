package io.floe.engines;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A row as the lifecycle comparisons see it: the values of the named columns, in order, in one text
 * form whatever engine read them (integers of any width as integers, binary as UTF-8 text, timestamps
 * as instants), so that the rows of different readers and of the produced records compare by value.
 */
final class RowText {

    /** The value of a column the reader's schema does not have (not the same as null). */
    static final Object ABSENT = new Object() {
        @Override
        public String toString() {
            return "<no such column>";
        }
    };

    private static final int SHOWN = 4;

    private RowText() {}

    static String of(List<String> columns, Function<String, Object> value) {
        StringJoiner row = new StringJoiner(" ");
        for (String column : columns) {
            row.add(column + "=" + text(value.apply(column)));
        }
        return row.toString();
    }

    /**
     * How {@code actual} differs from {@code expected}, as multisets (a row read twice is one row too
     * many): empty when they are equal, else the counts and a few rows of each side.
     */
    static String difference(List<String> expected, List<String> actual) {
        Map<String, Integer> surplus = new TreeMap<>();
        actual.forEach(row -> surplus.merge(row, 1, Integer::sum));
        expected.forEach(row -> surplus.merge(row, -1, Integer::sum));
        List<String> missing = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        surplus.forEach((row, count) -> {
            for (int i = 0; i < Math.abs(count); i++) {
                (count < 0 ? missing : unexpected).add(row);
            }
        });
        if (missing.isEmpty() && unexpected.isEmpty()) {
            return "";
        }
        return actual.size() + " rows read, " + expected.size() + " expected; " + missing.size() + " missing, such as "
                + missing.subList(0, Math.min(SHOWN, missing.size())) + "; " + unexpected.size()
                + " unexpected, such as " + unexpected.subList(0, Math.min(SHOWN, unexpected.size()));
    }

    private static String text(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short) {
            return Long.toString(((Number) value).longValue());
        }
        if (value instanceof Float || value instanceof Double) {
            return Double.toString(((Number) value).doubleValue());
        }
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (value instanceof String || value instanceof Instant || value == ABSENT) {
            return value.toString();
        }
        throw new IllegalArgumentException("no comparison form for " + value.getClass().getName() + " " + value);
    }
}
