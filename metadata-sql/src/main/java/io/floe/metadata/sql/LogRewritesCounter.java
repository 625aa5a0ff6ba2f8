package io.floe.metadata.sql;

import io.floe.core.concurrency.Concurrency;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * The {@code log_rewrites} counter as {@code MetadataStore#logRewrites} serves it: every fetch served
 * from an agent's index asks for it. A read value is kept until a write of this store that may move
 * the counter {@link #invalidate() invalidates} it (after its transaction ended, committed or not):
 * for good on a database only this process writes, and for at most {@link #SHARED_MAX_AGE_NANOS} on
 * a shared one, so another agent's rewrite is seen within that (as its commits are, see the fetch
 * path's poll) while fetches do not each cost a round trip.
 */
final class LogRewritesCounter {

    /** One known (or unknown) value; each invalidation makes a new one, so a read that raced it is not kept. */
    private static final class Known {
        final long value;
        final long readAtNanos;

        Known(long value, long readAtNanos) {
            this.value = value;
            this.readAtNanos = readAtNanos;
        }
    }

    private static final long UNKNOWN = -1;
    static final long SHARED_MAX_AGE_NANOS = 100_000_000L;

    private final Database database;
    private final LongSupplier nanoTime;
    private final AtomicReference<Known> known = new AtomicReference<>(new Known(UNKNOWN, 0));

    LogRewritesCounter(Database database) {
        this(database, Concurrency.threads()::nanoTime);
    }

    LogRewritesCounter(Database database, LongSupplier nanoTime) {
        this.database = database;
        this.nanoTime = nanoTime;
    }

    long value() throws SQLException {
        Known seen = known.get();
        long now = nanoTime.getAsLong();
        if (seen.value != UNKNOWN && (database.exclusive() || now - seen.readAtNanos < SHARED_MAX_AGE_NANOS)) {
            return seen.value;
        }
        long value = read();
        // Kept only if no write invalidated the counter since: that write may have committed after this read.
        known.compareAndSet(seen, new Known(value, now));
        return value;
    }

    /** Call after every write transaction that may have moved the counter has ended, whatever its outcome. */
    void invalidate() {
        known.set(new Known(UNKNOWN, 0));
    }

    private long read() throws SQLException {
        return database.read(connection -> Counters.value(connection, Counters.LOG_REWRITES));
    }
}
