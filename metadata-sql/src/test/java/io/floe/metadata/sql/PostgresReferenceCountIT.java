package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.metadata.ReferenceMismatch;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.core.topic.UnknownTopicException;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.metadata.RoleContract;
import io.floe.testkit.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
    private static final List<String> TOPICS = List.of("mix-a", "mix-b", "mix-c");
    private static final int MIX_WRITERS = 8;
    private static final int MIX_STEPS = 40;
    private static final long MIX_SEED = 20_261_201L;
    /** Registrations before this time are expired by the mix's sweeps (commits register later ones). */
    private static final long EXPIRED_BEFORE = 1_000_000L;

    private static final Instant NOW =
            Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP).plus(Duration.ofDays(1));

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
        BatchCoordinate moved =
                store.batches(new TopicPartition("doomed", 0), 0, 1).get(0);
        ObjectKey x = moved.object();
        ObjectKey output = produce.registerUpload();
        ObjectRewrite swap = new ObjectRewrite(
                output,
                ProduceFixture.BATCH_BYTES,
                List.of(new ObjectRewrite.Move(moved, new ByteRange(0, ProduceFixture.BATCH_BYTES))));

        Future<RewriteOutcome> swapping;
        Future<?> deleting;
        try (Connection holder = connect();
                Connection observer = connect()) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock =
                    holder.prepareStatement("SELECT value FROM counters WHERE name = ? FOR UPDATE")) {
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
        assertThat(store.referenceMismatches())
                .as("objects whose count is not their number of rows")
                .isEmpty();
        // With exact counts the sweep takes the output (no rows left) and retention then releases X.
        assertThat(store.scheduleUnreferenced(NOW, NOW, NOW)).isEqualTo(1);
        assertThat(store.truncateLog(new TopicPartition("kept", 0), 1, NOW)).isEqualTo(1);
        assertThat(store.dueDeletions(NOW, 10))
                .extracting(deletion -> deletion.key())
                .containsExactlyInAnyOrder(x, output);
        assertThat(store.referenceMismatches()).isEmpty();
    }

    /**
     * Three stores, as three agents would have, run every writer that changes batch rows or counts at
     * once on a few topics: commits, compaction swaps (some into outputs the sweep may expire first),
     * key compaction's moves and removals, retention, DeleteRecords, topic deletion and re-creation,
     * and the sweep. A reader audits the counts throughout (one statement, one snapshot: every
     * committed state must be exact), and once more at the end. Random from a seed the failure prints.
     */
    @Test
    void everyCountStaysExactUnderConcurrentMaintenanceOfAllKinds() throws Exception {
        List<MetadataStore> stores = List.of(
                store,
                SqlMetadataStore.openPostgres(PostgresTesting.config(url), Clock.systemUTC()),
                SqlMetadataStore.openPostgres(PostgresTesting.config(url), Clock.systemUTC()));
        try {
            for (String topic : TOPICS) {
                store.createTopic(new NewTopic(topic, 2, Map.of()));
            }
            AtomicBoolean running = new AtomicBoolean(true);
            List<Callable<Integer>> writers = new ArrayList<>();
            for (int w = 0; w < MIX_WRITERS; w++) {
                MetadataStore writerStore = stores.get(w % stores.size());
                Random random = new Random(MIX_SEED + w);
                int kind = w;
                writers.add(() -> {
                    for (int i = 0; i < MIX_STEPS; i++) {
                        mixStep(writerStore, kind % 7 == 0 ? 0 : 1 + random.nextInt(6), random);
                    }
                    return MIX_STEPS;
                });
            }
            AtomicInteger auditsDuringMix = new AtomicInteger();
            Future<List<ReferenceMismatch>> auditor = executor.submit(() -> {
                List<ReferenceMismatch> found = List.of();
                while (running.get() && found.isEmpty()) {
                    found = stores.get(1).referenceMismatches();
                    auditsDuringMix.incrementAndGet();
                }
                return found;
            });
            try {
                RoleContract.runConcurrently(writers);
            } finally {
                running.set(false);
            }

            assertThat(auditor.get(TIMEOUT_SECONDS, TimeUnit.SECONDS))
                    .as("audit during the mix (seed %d)", MIX_SEED)
                    .isEmpty();
            assertThat(auditsDuringMix).as("audits run while the mix ran").hasPositiveValue();
            assertThat(store.referenceMismatches())
                    .as("audit after the mix (seed %d)", MIX_SEED)
                    .isEmpty();
            assertThat(store.storageStats().committedObjects())
                    .as("the mix committed something")
                    .isPositive();
        } finally {
            stores.get(1).close();
            stores.get(2).close();
        }
    }

    /**
     * One step of a writer: 0 commits only; 1 compacts, 2 removes batches as key compaction does, 3
     * truncates, 4 deletes records, 5 sweeps, 6 deletes and re-creates a topic (once in a while).
     */
    private static void mixStep(MetadataStore store, int kind, Random random) {
        String topicName = TOPICS.get(random.nextInt(TOPICS.size()));
        TopicPartition tp = new TopicPartition(topicName, random.nextInt(2));
        try {
            switch (kind) {
                case 0, 1, 2 -> {
                    if (kind == 0 || random.nextInt(3) == 0) {
                        commitAcrossTopics(store, random);
                    } else {
                        rewriteSome(store, random, kind == 2);
                    }
                }
                case 3 -> {
                    LogOffsets offsets = store.offsets(tp);
                    store.truncateLog(tp, between(random, offsets.logStartOffset(), offsets.highWatermark()), NOW);
                }
                case 4 -> {
                    LogOffsets offsets = store.offsets(tp);
                    store.deleteRecords(tp, between(random, offsets.logStartOffset(), offsets.highWatermark()));
                }
                case 5 -> store.scheduleUnreferenced(Instant.ofEpochMilli(EXPIRED_BEFORE), NOW, NOW);
                default -> {
                    if (random.nextInt(8) == 0) {
                        store.deleteTopic(topicName);
                        store.createTopic(new NewTopic(topicName, 2, Map.of()));
                    } else {
                        commitAcrossTopics(store, random);
                    }
                }
            }
        } catch (UnknownTopicException | TopicExistsException | OffsetOutOfRangeException raced) {
            // Another writer deleted or re-created the topic, or moved its log start, meanwhile.
        }
    }

    /** One object with batches of every topic that exists now, two or three per partition. */
    private static void commitAcrossTopics(MetadataStore store, Random random) {
        ProduceFixture produce = new ProduceFixture(store);
        List<BatchAppend> batches = new ArrayList<>();
        for (Topic topic : store.topics()) {
            for (int partition = 0; partition < topic.partitionCount(); partition++) {
                for (int b = 2 + random.nextInt(2); b > 0; b--) {
                    batches.add(produce.batch(topic, partition, 1 + random.nextInt(3)));
                }
            }
        }
        if (!batches.isEmpty()) {
            produce.commit(batches.toArray(BatchAppend[]::new));
        }
    }

    /**
     * A swap planned from a few small objects' rows: moves some rows to a new output (registered as
     * expired half the time, so the sweep races it) and, as key compaction does, removes others.
     */
    private static void rewriteSome(MetadataStore store, Random random, boolean removeSome) {
        List<ObjectKey> inputs = store.smallObjects(Long.MAX_VALUE, NOW, 50).stream()
                .map(object -> object.key())
                .toList();
        if (inputs.isEmpty()) {
            return;
        }
        List<BatchCoordinate> rows =
                new ArrayList<>(store.batchesIn(inputs.subList(0, Math.min(inputs.size(), 1 + random.nextInt(3)))));
        Collections.shuffle(rows, random);
        List<ObjectRewrite.Move> moves = new ArrayList<>();
        List<BatchCoordinate> removed = new ArrayList<>();
        long position = 0;
        for (BatchCoordinate row : rows.subList(0, Math.min(rows.size(), 1 + random.nextInt(8)))) {
            if (removeSome && random.nextBoolean()) {
                removed.add(row);
            } else {
                moves.add(new ObjectRewrite.Move(
                        row, new ByteRange(position, row.range().length())));
                position += row.range().length();
            }
        }
        if (moves.isEmpty() && removed.isEmpty()) {
            return;
        }
        ObjectKey output = null;
        if (!moves.isEmpty()) {
            output = new ObjectKey("segments/ff/mix-" + UUID.randomUUID() + ".seg");
            store.registerUpload(
                    output,
                    "compactor",
                    Instant.ofEpochMilli(random.nextBoolean() ? EXPIRED_BEFORE - 1 : ProduceFixture.DEFAULT_TIMESTAMP));
        }
        store.rewrite(new ObjectRewrite(output, position, moves, removed), NOW);
    }

    private static long between(Random random, long low, long high) {
        return high <= low ? low : low + (long) (random.nextDouble() * (high - low + 1));
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
        try (PreparedStatement select =
                observer.prepareStatement("SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")) {
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
