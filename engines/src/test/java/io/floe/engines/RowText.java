package io.floe.engines;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.StringJoiner;
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

    private RowText() {}

    static String of(List<String> columns, Function<String, Object> value) {
        StringJoiner row = new StringJoiner(" ");
        for (String column : columns) {
            row.add(column + "=" + text(value.apply(column)));
        }
        return row.toString();
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
