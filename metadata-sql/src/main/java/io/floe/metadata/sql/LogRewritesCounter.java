package io.floe.metadata.sql;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@code log_rewrites} counter as {@code MetadataStore#logRewrites} serves it: every fetch served
 * from an agent's index asks for it. A database only this process writes is read once and then
 * answered from memory until a write that may move the counter {@link #invalidate() invalidates} it
 * (after its transaction ended, committed or not); a shared database is read every time.
 */
final class LogRewritesCounter {

    /** One known (or unknown) value; each invalidation makes a new one, so a read that raced it is not kept. */
    private static final class Known {
        final long value;

        Known(long value) {
            this.value = value;
        }
    }

    private static final long UNKNOWN = -1;

    private final Database database;
    private final AtomicReference<Known> known = new AtomicReference<>(new Known(UNKNOWN));

    LogRewritesCounter(Database database) {
        this.database = database;
    }

    long value() throws SQLException {
        if (!database.exclusive()) {
            return read();
        }
        Known seen = known.get();
        if (seen.value != UNKNOWN) {
            return seen.value;
        }
        long value = read();
        // Kept only if no write invalidated the counter since: that write may have committed after this read.
        known.compareAndSet(seen, new Known(value));
        return value;
    }

    /** Call after every write transaction that may have moved the counter has ended, whatever its outcome. */
    void invalidate() {
        known.set(new Known(UNKNOWN));
    }

    private long read() throws SQLException {
        return database.read(connection -> Counters.value(connection, Counters.LOG_REWRITES));
    }
}
