package io.floe.tableflow.changes;

/** What a change did to its key's row, with Debezium's one-letter codes. */
public enum Op {
    INSERT("c"),
    UPDATE("u"),
    DELETE("d");

    private final String code;

    Op(String code) {
        this.code = code;
    }

    /** {@code c}, {@code u} or {@code d}, as Debezium's envelope writes them. */
    public String code() {
        return code;
    }
}
