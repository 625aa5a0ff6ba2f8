package io.floe.tableflow.changes;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * One end of a change query, resolved against a table to {@link Offsets}: a snapshot id (its
 * watermark), a commit time (the watermark of the snapshot current then), offsets per partition, the
 * table's start ({@code earliest}, offset 0 everywhere) or its current snapshot ({@code latest}).
 */
public sealed interface Point {

    /** What {@link #parse} reads, for messages. */
    String FORMS = "a snapshot id (5937117119577207286), a commit time (2026-01-02T03:04:05Z),"
            + " offsets per partition (0:120,1:98), earliest or latest";

    record AtSnapshot(long snapshotId) implements Point {
        @Override
        public String toString() {
            return "snapshot " + snapshotId;
        }
    }

    record AtTime(Instant time) implements Point {
        @Override
        public String toString() {
            return "time " + time;
        }
    }

    record AtOffsets(Offsets offsets) implements Point {
        @Override
        public String toString() {
            return "offsets " + offsets;
        }
    }

    record Earliest() implements Point {
        @Override
        public String toString() {
            return "earliest";
        }
    }

    record Latest() implements Point {
        @Override
        public String toString() {
            return "latest";
        }
    }

    /** Reads one of {@link #FORMS}; {@link IllegalArgumentException} with the forms otherwise. */
    static Point parse(String text) {
        String trimmed = text.trim();
        switch (trimmed.toLowerCase(Locale.ROOT)) {
            case "earliest":
                return new Earliest();
            case "latest":
                return new Latest();
            default:
                break;
        }
        if (trimmed.contains("T")) {
            try {
                return new AtTime(OffsetDateTime.parse(trimmed).toInstant());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("cannot read the time '" + text + "': write it as ISO-8601 with"
                        + " a zone, as in 2026-01-02T03:04:05Z or 2026-01-02T04:04:05+01:00");
            }
        }
        if (trimmed.contains(":")) {
            return new AtOffsets(Offsets.parse(trimmed));
        }
        if (trimmed.matches("\\d+")) {
            try {
                return new AtSnapshot(Long.parseLong(trimmed));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("snapshot id " + text + " is out of range");
            }
        }
        throw new IllegalArgumentException("cannot read the point '" + text + "': give " + FORMS);
    }
}
