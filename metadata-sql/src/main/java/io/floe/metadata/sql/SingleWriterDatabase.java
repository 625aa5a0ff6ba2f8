package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded database's connections and transactions: one write connection behind a lock (so
 * writes are serialized in this process, which is what makes offset assignment dense without row
 * locks), and a small pool of read connections that run beside the writer.
 */
final class SingleWriterDatabase implements Database {

    private static final Logger LOGGER = LoggerFactory.getLogger(SingleWriterDatabase.class);
    private static final long READER_WAIT_MS_MAX = 30_000;

    private final SqliteDialect dialect;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final BlockingQueue<Connection> readers;
    private Connection writer; // guarded by writeLock
    private volatile boolean closed;

    private SingleWriterDatabase(SqliteDialect dialect, Connection writer, List<Connection> readers) {
        this.dialect = dialect;
        this.writer = writer;
        this.readers = new ArrayBlockingQueue<>(readers.size(), false, readers);
    }

    /** Opens the writer first: it switches the file to WAL, which the read-only readers rely on. */
    static SingleWriterDatabase open(SqliteDialect dialect) throws SQLException {
        List<Connection> opened = new ArrayList<>();
        try {
            Connection writer = dialect.openWriter();
            opened.add(writer);
            List<Connection> readers = new ArrayList<>();
            for (int i = 0; i < dialect.readerCount(); i++) {
                Connection reader = dialect.openReader();
                opened.add(reader);
                readers.add(reader);
            }
            return new SingleWriterDatabase(dialect, writer, readers);
        } catch (SQLException | RuntimeException e) {
            opened.forEach(SingleWriterDatabase::closeQuietly);
            throw e;
        }
    }

    /** The file lock keeps every other store off the file. */
    @Override
    public boolean exclusive() {
        return true;
    }

    @Override
    public <T> T write(SqlWork<T> work) throws SQLException {
        writeLock.lock();
        try {
            ensureOpen();
            if (writer.isClosed()) {
                writer = dialect.openWriter(); // a failed rollback closed it
            }
            return inTransaction(writer, work, true);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public <T> T read(SqlWork<T> work) throws SQLException {
        Connection reader = borrowReader();
        try {
            return inTransaction(reader, work, false);
        } finally {
            returnReader(reader);
        }
    }

    private <T> T inTransaction(Connection connection, SqlWork<T> work, boolean isWriter) throws SQLException {
        dialect.begin(connection, isWriter);
        try {
            T result = work.run(connection);
            dialect.commit(connection);
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            rollback(connection, isWriter, e);
            throw e;
        }
    }

    /**
     * Rolls back after a failure. If even that fails, the connection's state is unknown (the
     * database may have rolled back by itself, or the connection may be broken), so it is closed;
     * the next write or read on it opens a fresh one.
     */
    private void rollback(Connection connection, boolean isWriter, Throwable failure) {
        try {
            dialect.rollback(connection);
        } catch (SQLException e) {
            failure.addSuppressed(e);
            LOGGER.error("rollback failed, closing connection store={} writer={}", dialect.describe(), isWriter, e);
            closeQuietly(connection);
        }
    }

    /** A read connection from the pool, reopened if a failed rollback closed it. */
    private Connection borrowReader() throws SQLException {
        ensureOpen();
        Connection reader;
        try {
            reader = readers.poll(READER_WAIT_MS_MAX, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MetadataStoreException(
                    "interrupted waiting for a read connection of " + dialect.describe(), true, e);
        }
        if (reader == null) {
            throw new MetadataStoreException(
                    "no read connection of " + dialect.describe() + " became free within " + READER_WAIT_MS_MAX + " ms",
                    true,
                    null);
        }
        if (!reader.isClosed()) {
            return reader;
        }
        try {
            return dialect.openReader();
        } catch (SQLException | RuntimeException e) {
            returnReader(reader);
            throw e;
        }
    }

    private void returnReader(Connection reader) {
        if (closed || !readers.offer(reader)) {
            closeQuietly(reader);
        } else if (closed && readers.remove(reader)) {
            // close() drained the pool between the check and the offer.
            closeQuietly(reader);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new MetadataStoreException("metadata store " + dialect.describe() + " is closed", false, null);
        }
    }

    /** Closes every connection, then the dialect (releasing the file lock). Idempotent. */
    @Override
    public void close() {
        writeLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            closeQuietly(writer);
            List<Connection> idle = new ArrayList<>();
            readers.drainTo(idle);
            idle.forEach(SingleWriterDatabase::closeQuietly);
            dialect.close();
        } finally {
            writeLock.unlock();
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            LOGGER.warn("closing a connection failed", e);
        }
    }
}
