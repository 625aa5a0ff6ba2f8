package io.floe.metadata.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.sql.Statement;

/**
 * PostgreSQL, shared by many agents. Writers run concurrently, each on its own pooled connection, at
 * READ COMMITTED with explicit row locks ({@code SELECT ... FOR UPDATE}) taken in one global order
 * (see {@link Dialect}).
 *
 * <p>Why READ COMMITTED and locks rather than SERIALIZABLE: a commit is a read-modify-write of a few
 * hot rows (the partitions' next offsets, the producers' states, the object's registration). Under
 * SERIALIZABLE, two agents committing to the same partition conflict, one of them fails with a
 * serialization error and must redo its whole transaction, so throughput on a hot partition falls
 * as agents are added. With row locks they queue instead: the second commit waits for the first,
 * then its {@code FOR UPDATE} reads the first one's committed values and goes on; nothing is redone.
 * Deadlocks are avoided by the lock order; should one happen anyway (40P01), or a serialization
 * failure (40001), {@link PooledDatabase} reruns the transaction, which the server rolled back.
 *
 * <p>Reads run at REPEATABLE READ, READ ONLY: one snapshot for all statements of a read, like a
 * SQLite read transaction. Read-only transactions at that level never fail with serialization errors.
 */
final class PostgresDialect implements Dialect {

    /** The key of the advisory lock that serializes migrations: "Floe" in ASCII. */
    private static final long SCHEMA_LOCK_KEY = 0x466c6f65L;

    private static final String SERIALIZATION_FAILURE = "40001";
    private static final String DEADLOCK_DETECTED = "40P01";
    private static final String UNIQUE_VIOLATION = "23505";
    private static final String TOO_MANY_CONNECTIONS = "53300";
    private static final String ADMIN_SHUTDOWN = "57P01";
    private static final String CANNOT_CONNECT_NOW = "57P03";

    private final String location;

    PostgresDialect(PostgresConfig config) {
        this.location = config.location();
    }

    @Override
    public String describe() {
        return location;
    }

    /**
     * The pool's connections do not auto-commit and default to READ COMMITTED, so a write needs
     * nothing here: the driver sends BEGIN with the first statement. A read makes its transaction
     * a read-only snapshot; that statement travels with the BEGIN.
     */
    @Override
    public void begin(Connection connection, boolean write) throws SQLException {
        if (!write) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            }
        }
    }

    @Override
    public void commit(Connection connection) throws SQLException {
        connection.commit();
    }

    @Override
    public void rollback(Connection connection) throws SQLException {
        connection.rollback();
    }

    @Override
    public String forUpdate() {
        return " FOR UPDATE";
    }

    /** PostgreSQL locks the rows as the sort above the scan returns them, so in {@code orderBy} order. */
    @Override
    public String forUpdateInOrder(String orderBy) {
        return " ORDER BY " + orderBy + " FOR UPDATE";
    }

    /** A transaction-scoped advisory lock: released by the COMMIT or ROLLBACK that ends the migration. */
    @Override
    public void lockSchema(Connection connection) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
            lock.setLong(1, SCHEMA_LOCK_KEY);
            lock.execute();
        }
    }

    @Override
    public boolean retriable(SQLException e) {
        if (e instanceof SQLTransientException) {
            return true; // among them, HikariCP's timeout waiting for a free connection
        }
        String state = sqlState(e);
        return state != null
                && (state.startsWith("08")
                        || rolledBackByConflict(e)
                        || state.equals(TOO_MANY_CONNECTIONS)
                        || state.equals(ADMIN_SHUTDOWN)
                        || state.equals(CANNOT_CONNECT_NOW));
    }

    @Override
    public boolean uniqueViolation(SQLException e) {
        return UNIQUE_VIOLATION.equals(sqlState(e));
    }

    /**
     * True when the server aborted the transaction because it conflicted with another one (a
     * deadlock, a serialization failure): it was rolled back, so running it again is safe.
     */
    static boolean rolledBackByConflict(SQLException e) {
        String state = sqlState(e);
        return SERIALIZATION_FAILURE.equals(state) || DEADLOCK_DETECTED.equals(state);
    }

    /**
     * The SQL state of the failure, looking inside batch failures (the driver reports the server's
     * error as the batch exception's next exception).
     */
    static String sqlState(SQLException e) {
        for (SQLException current = e; current != null; current = current.getNextException()) {
            if (current.getSQLState() != null) {
                return current.getSQLState();
            }
            if (current.getCause() instanceof SQLException cause && cause.getSQLState() != null) {
                return cause.getSQLState();
            }
        }
        return null;
    }

    @Override
    public void close() {
        // The pool owns every connection; PooledDatabase closes it.
    }
}
