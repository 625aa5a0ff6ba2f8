package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive OS lock on {@code <dbFile>.lock}, held while an embedded store is open. SQLite would
 * let two agents share the file, but two agents would each assume they own every partition; the lock
 * turns that mistake into a clear error at startup.
 */
final class DatabaseFileLock implements AutoCloseable {

    private final Path lockFile;
    private final FileChannel channel;
    private final FileLock lock;

    private DatabaseFileLock(Path lockFile, FileChannel channel, FileLock lock) {
        this.lockFile = lockFile;
        this.channel = channel;
        this.lock = lock;
    }

    static DatabaseFileLock acquire(Path dbFile) {
        Path lockFile = Path.of(dbFile + ".lock");
        FileChannel channel = openChannel(dbFile, lockFile);
        FileLock lock = tryLock(channel, dbFile, lockFile);
        if (lock == null) {
            closeQuietly(channel);
            throw new MetadataStoreException(
                    "cannot open metadata store " + dbFile + ": " + lockFile
                            + " is locked, another Floe agent is using this embedded metadata store",
                    false,
                    null);
        }
        return new DatabaseFileLock(lockFile, channel, lock);
    }

    private static FileChannel openChannel(Path dbFile, Path lockFile) {
        try {
            return FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new MetadataStoreException(
                    "cannot open metadata store " + dbFile + ": cannot create lock file " + lockFile, false, e);
        }
    }

    /** The lock, or null when another process or another store in this JVM holds it. */
    private static FileLock tryLock(FileChannel channel, Path dbFile, Path lockFile) {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new MetadataStoreException(
                    "cannot open metadata store " + dbFile + ": cannot lock " + lockFile, false, e);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Nothing was locked through this channel; there is nothing to release.
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new MetadataStoreException("cannot release " + lockFile, false, e);
        }
    }
}
