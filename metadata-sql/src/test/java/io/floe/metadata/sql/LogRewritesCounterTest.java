package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the counter is read from the database and when a value read before is answered. */
class LogRewritesCounterTest {

    private final AtomicLong now = new AtomicLong();

    /** A database holding only the counter, which counts its reads; {@code duringRead} runs inside each read. */
    private static final class CounterDatabase implements Database {
        final boolean exclusive;
        long value = 7;
        int reads;
        Runnable duringRead = () -> {};

        CounterDatabase(boolean exclusive) {
            this.exclusive = exclusive;
        }

        @Override
        public <T> T write(SqlWork<T> work) {
            throw new UnsupportedOperationException();
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T read(SqlWork<T> work) {
            reads++;
            long read = value;
            duringRead.run();
            return (T) Long.valueOf(read);
        }

        @Override
        public boolean exclusive() {
            return exclusive;
        }

        @Override
        public void close() {}
    }

    @Test
    void aDatabaseOnlyThisProcessWritesIsReadAgainOnlyAfterAnInvalidation() throws SQLException {
        CounterDatabase database = new CounterDatabase(true);
        LogRewritesCounter counter = new LogRewritesCounter(database, now::get);

        assertThat(counter.value()).isEqualTo(7);
        now.addAndGet(60_000_000_000L);
        assertThat(counter.value()).isEqualTo(7);
        assertThat(database.reads).isEqualTo(1);

        database.value = 8;
        counter.invalidate();
        assertThat(counter.value()).isEqualTo(8);
        assertThat(database.reads).isEqualTo(2);
    }

    @Test
    void aSharedDatabaseIsReadAgainOnceTheValueIsOlderThanItsMaximumAge() throws SQLException {
        CounterDatabase database = new CounterDatabase(false);
        LogRewritesCounter counter = new LogRewritesCounter(database, now::get);

        assertThat(counter.value()).isEqualTo(7);
        database.value = 8; // another agent's swap
        now.addAndGet(LogRewritesCounter.SHARED_MAX_AGE_NANOS - 1);
        assertThat(counter.value()).isEqualTo(7);
        now.addAndGet(1);
        assertThat(counter.value()).isEqualTo(8);
        assertThat(database.reads).isEqualTo(2);

        database.value = 9; // this store's own swap
        counter.invalidate();
        assertThat(counter.value()).isEqualTo(9);
    }

    @Test
    void aReadThatAnInvalidationOvertookIsAnsweredButNotKept() throws SQLException {
        CounterDatabase database = new CounterDatabase(true);
        LogRewritesCounter counter = new LogRewritesCounter(database, now::get);
        database.duringRead = () -> {
            database.value = 8; // a swap commits while the read is under way
            counter.invalidate();
        };

        assertThat(counter.value()).isEqualTo(7);
        database.duringRead = () -> {};
        assertThat(counter.value()).as("read again, not the overtaken 7").isEqualTo(8);
        assertThat(counter.value()).isEqualTo(8);
        assertThat(database.reads).isEqualTo(2);
    }
}
