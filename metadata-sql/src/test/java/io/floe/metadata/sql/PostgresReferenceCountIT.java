package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reference counts under real concurrent transactions on PostgreSQL, in an interleaving the test
 * forces with row locks it holds itself (no timing): a compaction swap that commits while a topic
 * deletion waits on a row the swap changed.
 */
class PostgresReferenceCountIT {

    private static final long TIMEOUT_SECONDS = 60;
    private static final Instant NOW = Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP).plus(Duration.ofDays(1));

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private String url;
    private MetadataStore store;

    @BeforeEach
    void openStore() {
        TestPostgres postgres = TestPostgres.get();
        url = postgres.createSchema(postgres.createDatabase());
        store = SqlMetadataStore.openPostgres(PostgresTesting.config(url), Clock.systemUTC());
    }

    @AfterEach
    void closeStore() {
        executor.shutdownNow();
        store.close();
    }

    /**
     * Object X holds two batches of "doomed" and one of "kept"; a swap moves the first "doomed" batch
     * to an output. The test holds the log rewrites counter's row, which the swap takes last, so the
     * swap stops with its row changes made; the deletion then starts and waits on a row the swap
     * holds; the test lets the swap commit. Counting the topic's rows from the deletion's snapshot
     * (the old UPDATE with a correlated COUNT) released X twice for the moved batch and never
     * released the output.
     */
    @Test
    void aTopicDeletedWhileACompactionSwapCommitsReleasesExactlyTheRowsItRemoved() throws Exception {
        Topic doomed = store.createTopic(new NewTopic("doomed", 1, Map.of()));
        Topic kept = store.createTopic(new NewTopic("kept", 1, Map.of()));
        ProduceFixture produce = new ProduceFixture(store);
        produce.commit(produce.batch(doomed, 0, 1), produce.batch(doomed, 0, 1), produce.batch(kept, 0, 1));
        BatchCoordinate moved = store.batches(new TopicPartition("doomed", 0), 0, 1).get(0);
        ObjectKey x = moved.object();
        ObjectKey output = produce.registerUpload();
        ObjectRewrite swap = new ObjectRewrite(output, ProduceFixture.BATCH_BYTES,
                List.of(new ObjectRewrite.Move(moved, new ByteRange(0, ProduceFixture.BATCH_BYTES))));

        Future<RewriteOutcome> swapping;
        Future<?> deleting;
        try (Connection holder = connect(); Connection observer = connect()) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement(
                    "SELECT value FROM counters WHERE name = ? FOR UPDATE")) {
                lock.setString(1, Counters.LOG_REWRITES);
                lock.executeQuery().close();
            }
            swapping = executor.submit(() -> store.rewrite(swap, NOW));
            int swapPid = awaitBlockedBy(observer, pid(holder));
            deleting = executor.submit(() -> {
                store.deleteTopic("doomed");
                return null;
            });
            awaitBlockedBy(observer, swapPid);
            holder.rollback();
        }

        assertThat(swapping.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isInstanceOf(RewriteOutcome.Rewritten.class);
        deleting.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(store.topic("doomed")).isEmpty();
        assertThat(store.referenceMismatches()).as("objects whose count is not their number of rows").isEmpty();
        // With exact counts the sweep takes the output (no rows left) and retention then releases X.
        assertThat(store.scheduleUnreferenced(NOW, NOW, NOW)).isEqualTo(1);
        assertThat(store.truncateLog(new TopicPartition("kept", 0), 1, NOW)).isEqualTo(1);
        assertThat(store.dueDeletions(NOW, 10)).extracting(deletion -> deletion.key())
                .containsExactlyInAnyOrder(x, output);
        assertThat(store.referenceMismatches()).isEmpty();
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url, TestPostgres.USER, TestPostgres.PASSWORD);
    }

    private static int pid(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT pg_backend_pid()");
                ResultSet row = select.executeQuery()) {
            row.next();
            return row.getInt(1);
        }
    }

    /**
     * Waits until a server process is blocked on a lock that process {@code blocker} holds, and
     * returns its pid. Each probe is a round trip to the server, which paces the loop.
     */
    private static int awaitBlockedBy(Connection observer, int blocker) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        try (PreparedStatement select = observer.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")) {
            select.setInt(1, blocker);
            while (System.nanoTime() < deadline) {
                try (ResultSet rows = select.executeQuery()) {
                    if (rows.next()) {
                        return rows.getInt(1);
                    }
                }
            }
        }
        throw new AssertionError("no server process blocked by pid " + blocker + " within " + TIMEOUT_SECONDS + " s");
    }
}
