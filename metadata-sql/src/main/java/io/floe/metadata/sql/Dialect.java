package io.floe.metadata.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What differs between the databases the SQL store runs on. Everything else in this package is
 * portable SQL (no vendor functions, row values and multi-row VALUES only where both SQLite and
 * PostgreSQL accept them).
 *
 * <p>Where writers run concurrently (PostgreSQL), they take row locks in one global order, so they
 * queue instead of deadlocking: the {@code topics} row, then the commit's own {@code objects} row,
 * then {@code partitions} rows by ascending id, then {@code producer_state} rows by ascending key,
 * then {@code batches} rows by (partition id, base offset), then {@code objects} rows of committed
 * objects (reference counts) by key. A commit locks its own object's
 * row first, but no other writer locks a registered object's row after partition rows.
 */
interface Dialect extends AutoCloseable {

    /** Kind and location of the database, for logs and {@code describe()}; never a password. */
    String describe();

    /**
     * Starts a transaction on {@code connection}. A write transaction on a single-writer database
     * takes the database's write lock now, not at its first write.
     */
    void begin(Connection connection, boolean write) throws SQLException;

    void commit(Connection connection) throws SQLException;

    void rollback(Connection connection) throws SQLException;

    /**
     * An INSERT of {@code keyColumns} then {@code valueColumns} (one placeholder each) that updates
     * the value columns when a row with the same key exists. SQLite (3.24 and later) and PostgreSQL
     * both accept {@code ON CONFLICT ... DO UPDATE}.
     */
    default String upsert(String table, List<String> keyColumns, List<String> valueColumns) {
        String columns = String.join(", ", keyColumns) + ", " + String.join(", ", valueColumns);
        String placeholders = String.join(", ", Collections.nCopies(keyColumns.size() + valueColumns.size(), "?"));
        String updates = valueColumns.stream().map(c -> c + " = excluded." + c).collect(Collectors.joining(", "));
        return "INSERT INTO " + table + " (" + columns + ") VALUES (" + placeholders + ")" + " ON CONFLICT ("
                + String.join(", ", keyColumns) + ") DO UPDATE SET " + updates;
    }

    /**
     * The suffix for a SELECT of one row that the write transaction goes on to change, so concurrent
     * writers queue on that row; empty where the dialect serializes writers anyway.
     */
    String forUpdate();

    /**
     * The suffix for a SELECT of many rows that the write transaction goes on to change: locks them
     * in the order of {@code orderBy} (numeric columns, so the order is the same in every database
     * and in Java), so that two writers never wait for each other's rows in opposite orders. Callers
     * that split their keys over several statements send them in that order too.
     */
    String forUpdateInOrder(String orderBy);

    /**
     * Serializes schema migrations between stores starting at once on one database, until the
     * transaction on {@code connection} ends.
     */
    void lockSchema(Connection connection) throws SQLException;

    /** True when the failure is transient (lock contention, a lost connection): a retry may succeed. */
    boolean retriable(SQLException e);

    /** True when the statement failed because it would have duplicated a primary key or unique value. */
    boolean uniqueViolation(SQLException e);

    /** Releases what the dialect holds beyond connections (SQLite: the file lock). */
    @Override
    void close();
}
