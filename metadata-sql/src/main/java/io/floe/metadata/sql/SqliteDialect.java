package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteException;

/**
 * Embedded SQLite: one agent, one file. WAL journal so reads run beside the single writer;
 * {@code synchronous=FULL} because an acknowledged produce must survive a power loss; an exclusive
 * file lock so a second agent on the same file fails at startup instead of corrupting offsets.
 */
final class SqliteDialect implements Dialect {

    private static final int READER_COUNT = 4;
    private static final int BUSY_TIMEOUT_MS = 5_000;
    /**
     * The writer keeps the hot pages of the batch index cached between commits. Readers keep the
     * default: another connection's commit invalidates their cache anyway.
     */
    private static final int WRITER_CACHE_KIB = 64 * 1024;
    /** A large transaction (deleting a big topic) grows the WAL; it is cut back to this size after checkpoints. */
    private static final int WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

    private static final int SQLITE_BUSY = 5;
    private static final int SQLITE_LOCKED = 6;
    private static final int SQLITE_CONSTRAINT = 19;

    private final Path dbFile;
    private final String url;
    private final DatabaseFileLock lock;

    private SqliteDialect(Path dbFile, DatabaseFileLock lock) {
        this.dbFile = dbFile;
        this.url = "jdbc:sqlite:" + dbFile;
        this.lock = lock;
    }

    /** Creates the parent directories and takes the file lock; fails if another store holds it. */
    static SqliteDialect open(Path dbFile) {
        Path absolute = dbFile.toAbsolutePath().normalize();
        try {
            Files.createDirectories(absolute.getParent());
        } catch (IOException e) {
            throw new MetadataStoreException("cannot create the directory of metadata store " + absolute, false, e);
        }
        return new SqliteDialect(absolute, DatabaseFileLock.acquire(absolute));
    }

    @Override
    public String describe() {
        return "sqlite:" + dbFile;
    }

    /** A connection for the single writer, configured for durable commits. */
    Connection openWriter() throws SQLException {
        SQLiteConfig config = commonConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setCacheSize(-WRITER_CACHE_KIB);
        config.setJournalSizeLimit(WAL_SIZE_LIMIT_BYTES);
        return config.createConnection(url);
    }

    /** A connection for reads only. */
    Connection openReader() throws SQLException {
        SQLiteConfig config = commonConfig();
        config.setReadOnly(true);
        return config.createConnection(url);
    }

    private static SQLiteConfig commonConfig() {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(BUSY_TIMEOUT_MS);
        config.enforceForeignKeys(true);
        return config;
    }

    /**
     * Plain SQL instead of JDBC's auto-commit switch: sqlite-jdbc's {@code commit()} immediately
     * begins the next transaction, and a failed BEGIN leaves its auto-commit flag off with no
     * transaction open. Writers BEGIN IMMEDIATE, so a write transaction never fails half-way while
     * upgrading a read lock.
     */
    @Override
    public void begin(Connection connection, boolean write) throws SQLException {
        execute(connection, write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
    }

    @Override
    public void commit(Connection connection) throws SQLException {
        execute(connection, "COMMIT");
    }

    @Override
    public void rollback(Connection connection) throws SQLException {
        execute(connection, "ROLLBACK");
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** How many read connections the store keeps open. */
    int readerCount() {
        return READER_COUNT;
    }

    /** SQLite has no row locks; the store's single write connection already serializes writers. */
    @Override
    public String forUpdate() {
        return "";
    }

    @Override
    public String forUpdateInOrder(String orderBy) {
        return "";
    }

    /** BEGIN IMMEDIATE already excludes every other writer, and the file lock every other store. */
    @Override
    public void lockSchema(Connection connection) {
        // Nothing more to lock.
    }

    @Override
    public boolean retriable(SQLException e) {
        if (!(e instanceof SQLiteException)) {
            return false;
        }
        int primary = e.getErrorCode() & 0xFF;
        return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
    }

    /** Primary keys and unique columns fail alike, with "UNIQUE constraint failed: table.column". */
    @Override
    public boolean uniqueViolation(SQLException e) {
        return e instanceof SQLiteException
                && (e.getErrorCode() & 0xFF) == SQLITE_CONSTRAINT
                && String.valueOf(e.getMessage()).contains("UNIQUE constraint failed");
    }

    @Override
    public void close() {
        lock.close();
    }
}
