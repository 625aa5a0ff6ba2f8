package io.floe.metadata.sql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.floe.core.metadata.MetadataStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL database through a HikariCP pool: every transaction, write or read, borrows its own
 * connection, so writers run concurrently and rely on the row locks the SQL takes (see
 * {@link PostgresDialect}). A write the server aborted for a conflict (deadlock, serialization
 * failure) was rolled back, so it is run again, up to {@link #ATTEMPTS_MAX} times.
 */
final class PooledDatabase implements Database {

    private static final Logger LOGGER = LoggerFactory.getLogger(PooledDatabase.class);
    static final int ATTEMPTS_MAX = 5;

    private final PostgresDialect dialect;
    private final HikariDataSource pool;

    private PooledDatabase(PostgresDialect dialect, HikariDataSource pool) {
        this.dialect = dialect;
        this.pool = pool;
    }

    /**
     * Opens the pool and its first connection now, so an unreachable database or a refused login
     * fails here, with the server's reason, rather than at the first commit.
     */
    static PooledDatabase open(PostgresConfig config, PostgresDialect dialect) throws SQLException {
        try {
            return new PooledDatabase(dialect, new HikariDataSource(hikariConfig(config)));
        } catch (HikariPool.PoolInitializationException e) {
            if (e.getCause() instanceof SQLException cause) {
                throw cause;
            }
            throw new MetadataStoreException(
                    "cannot open a connection pool to metadata store " + config.location() + ": " + e.getMessage(),
                    false,
                    e);
        }
    }

    private static HikariConfig hikariConfig(PostgresConfig config) {
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("floe-metadata " + config.location());
        hikari.setJdbcUrl(config.jdbcUrl());
        hikari.setUsername(config.user());
        hikari.setPassword(config.password());
        hikari.setMaximumPoolSize(config.poolSize());
        hikari.setMinimumIdle(Math.min(2, config.poolSize()));
        hikari.setConnectionTimeout(config.connectionTimeout().toMillis());
        hikari.setAutoCommit(false);
        hikari.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        // Fail at start-up after one attempt to connect, instead of retrying in the background.
        hikari.setInitializationFailTimeout(1);
        // Driver settings; parameters of the JDBC URL take precedence.
        long connectSeconds = Math.max(1, config.connectionTimeout().toSeconds());
        hikari.addDataSourceProperty("connectTimeout", Long.toString(connectSeconds));
        hikari.addDataSourceProperty("loginTimeout", Long.toString(connectSeconds));
        hikari.addDataSourceProperty(
                "socketTimeout",
                Long.toString(Math.max(1, config.socketTimeout().toSeconds())));
        hikari.addDataSourceProperty("tcpKeepAlive", "true");
        hikari.addDataSourceProperty("ApplicationName", "floe");
        // A commit inserts its batch rows with one multi-row INSERT instead of one statement each.
        hikari.addDataSourceProperty("reWriteBatchedInserts", "true");
        return hikari;
    }

    /** Other agents share the database. */
    @Override
    public boolean exclusive() {
        return false;
    }

    @Override
    public <T> T write(SqlWork<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return inTransaction(work, true);
            } catch (SQLException e) {
                if (attempt >= ATTEMPTS_MAX || !PostgresDialect.rolledBackByConflict(e)) {
                    throw e;
                }
                LOGGER.info(
                        "transaction conflicted, running it again store={} attempt={} sqlState={}",
                        dialect.describe(),
                        attempt,
                        PostgresDialect.sqlState(e));
            }
        }
    }

    @Override
    public <T> T read(SqlWork<T> work) throws SQLException {
        return inTransaction(work, false);
    }

    private <T> T inTransaction(SqlWork<T> work, boolean write) throws SQLException {
        ensureOpen();
        try (Connection connection = pool.getConnection()) {
            try {
                dialect.begin(connection, write);
                T result = work.run(connection);
                dialect.commit(connection);
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollback(connection, e);
                throw e;
            }
        }
    }

    /**
     * Rolls back after a failure. If even that fails, the connection's state is unknown, so it
     * leaves the pool instead of serving the next transaction (HikariCP already evicts connections
     * whose failures say the connection is broken).
     */
    private void rollback(Connection connection, Throwable failure) {
        try {
            dialect.rollback(connection);
        } catch (SQLException e) {
            failure.addSuppressed(e);
            LOGGER.warn("rollback failed, evicting connection store={}", dialect.describe(), e);
            pool.evictConnection(connection);
        }
    }

    private void ensureOpen() {
        if (pool.isClosed()) {
            throw new MetadataStoreException("metadata store " + dialect.describe() + " is closed", false, null);
        }
    }

    @Override
    public void close() {
        pool.close();
        dialect.close();
    }
}
