package io.floe.metadata.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * What differs between the databases the SQL store runs on. Everything else in this package is
 * portable SQL (no vendor functions, row values and multi-row VALUES only where both SQLite and
 * PostgreSQL accept them).
 */
interface Dialect extends AutoCloseable {

    /** Kind and location of the database, for logs and {@code describe()}. */
    String describe();

    /** A connection for the single writer, configured for durable commits. */
    Connection openWriter() throws SQLException;

    /** A connection for reads only. */
    Connection openReader() throws SQLException;

    /**
     * Starts a transaction on {@code connection}. A write transaction takes the database's write
     * lock now, not at its first write.
     */
    void begin(Connection connection, boolean write) throws SQLException;

    void commit(Connection connection) throws SQLException;

    void rollback(Connection connection) throws SQLException;

    /** How many read connections the store keeps open. */
    int readerCount();

    /**
     * An INSERT of {@code keyColumns} then {@code valueColumns} (one placeholder each) that updates
     * the value columns when a row with the same key exists.
     */
    String upsert(String table, List<String> keyColumns, List<String> valueColumns);

    /**
     * The suffix for a SELECT whose rows the write transaction goes on to change, so concurrent
     * writers queue on those rows; empty where the dialect serializes writers anyway.
     */
    String forUpdate();

    /** True when the failure is transient (lock contention, for example): a retry may succeed. */
    boolean retriable(SQLException e);

    /** Releases what the dialect holds beyond connections (SQLite: the file lock). */
    @Override
    void close();
}
