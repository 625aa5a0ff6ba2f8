package io.floe.metadata.sql;

import java.util.List;

/** One step of the schema's history: applied once, in one transaction, in version order. */
record Migration(int version, String description, List<String> statements) {

    Migration {
        if (version < 1) {
            throw new IllegalArgumentException("migration versions start at 1, got " + version);
        }
        statements = List.copyOf(statements);
    }
}
