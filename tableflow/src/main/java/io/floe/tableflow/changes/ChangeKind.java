package io.floe.tableflow.changes;

import java.util.Locale;

/** Which change query: the rows added, every change in order, or the net change per key. */
public enum ChangeKind {
    /** The rows added: every row of an append table, the inserts of an upsert table. */
    APPEND,
    /** Every change in log order: inserts, updates with the row before and after, deletes with the row before. */
    FULL,
    /** The net change per key between the two points; a key inserted then deleted does not appear. */
    MIN;

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind named {@code text}; {@link IllegalArgumentException} naming the kinds otherwise. */
    public static ChangeKind parse(String text) {
        for (ChangeKind kind : values()) {
            if (kind.text().equalsIgnoreCase(text.trim())) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown change kind '" + text + "': give append, full or min");
    }
}
