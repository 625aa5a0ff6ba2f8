package io.floe.metadata.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Reads the rows of many keys with a few statements instead of one round trip per key:
 * {@code <select> WHERE (k1, k2) IN (VALUES (?, ?), ...)}, in chunks that stay below every
 * database's parameter limit. Row values and multi-row VALUES work on SQLite and PostgreSQL alike.
 */
final class KeyedSelect {

    static final int KEYS_PER_STATEMENT_MAX = 250;

    /** Binds one key's columns starting at parameter {@code index}. */
    @FunctionalInterface
    interface Binder<K> {
        void bind(PreparedStatement statement, int index, K key) throws SQLException;
    }

    @FunctionalInterface
    interface RowHandler {
        void accept(ResultSet row) throws SQLException;
    }

    private KeyedSelect() {}

    /**
     * Runs {@code select + " WHERE (" + keyColumns + ") IN (VALUES ...)" + suffix} for every chunk of
     * {@code keys} and hands each row to {@code handler}.
     */
    static <K> void run(
            Connection connection,
            String select,
            List<String> keyColumns,
            String suffix,
            List<K> keys,
            Binder<K> binder,
            RowHandler handler)
            throws SQLException {
        int width = keyColumns.size();
        String tuple = "(" + String.join(", ", Collections.nCopies(width, "?")) + ")";
        for (List<K> chunk : chunks(keys)) {
            String sql = select + " WHERE (" + String.join(", ", keyColumns) + ") IN (VALUES "
                    + String.join(", ", Collections.nCopies(chunk.size(), tuple)) + ")" + suffix;
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                for (int i = 0; i < chunk.size(); i++) {
                    binder.bind(statement, 1 + i * width, chunk.get(i));
                }
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        handler.accept(rows);
                    }
                }
            }
        }
    }

    private static <K> List<List<K>> chunks(List<K> keys) {
        List<List<K>> chunks = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += KEYS_PER_STATEMENT_MAX) {
            chunks.add(keys.subList(from, Math.min(keys.size(), from + KEYS_PER_STATEMENT_MAX)));
        }
        return chunks;
    }
}
