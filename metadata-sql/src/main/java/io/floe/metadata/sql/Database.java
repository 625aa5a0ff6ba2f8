package io.floe.metadata.sql;

import java.sql.SQLException;

/**
 * The store's transactions. Each unit of work runs in one transaction on a connection of the
 * database's own: committed if the work returns, rolled back if it throws. SQLite's
 * {@link SingleWriterDatabase} runs one write at a time; PostgreSQL's {@link PooledDatabase} runs
 * many at once and relies on row locks.
 */
interface Database extends AutoCloseable {

    /** Runs {@code work} in a write transaction. */
    <T> T write(SqlWork<T> work) throws SQLException;

    /** Runs {@code work} in a read-only transaction that sees one consistent snapshot. */
    <T> T read(SqlWork<T> work) throws SQLException;

    /** True when no other process writes the database (the embedded store holds its file lock). */
    boolean exclusive();

    /** Closes every connection, then the dialect. Idempotent. */
    @Override
    void close();
}
