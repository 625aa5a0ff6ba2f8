package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.metadata.RoleContract;
import io.floe.testkit.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Four stores, as four agents would have, commit concurrently to overlapping partitions of one
 * PostgreSQL database, with idempotent producers that retry batches and agents that repeat whole
 * commits. Afterwards every partition's offsets must be dense and unique, every appended batch must
 * be in the log exactly once, and every retry must have been answered with the original offset.
 * The workload is random from a seed that failure messages print.
 */
class PostgresConcurrentCommitIT {

    private static final int STORES = 4;
    private static final int THREADS_PER_STORE = 2;
    private static final int COMMITS_PER_THREAD = 30;
    private static final int PARTITIONS = 6;
    private static final long SEED = 20_261_130L;
    /**
     * Retries pick among a producer's last batches on a partition that stay within the 5 the store
     * remembers even after this commit appends one more, so every retry's offset is known.
     */
    private static final int RETRY_WINDOW = 4;

    private final List<MetadataStore> stores = new ArrayList<>();

    /** One appended batch as its producer saw it. */
    private record Appended(TopicPartition partition, long baseOffset, int records) {}

    /** What one thread appended, and how each retry was answered. */
    private record ThreadLog(List<Appended> appended, List<String> wrongRetries) {}

    @AfterEach
    void closeStores() {
        stores.forEach(MetadataStore::close);
    }

    /** Opens {@link #STORES} stores on a fresh database; returns its JDBC URL. */
    private String openStores() {
        TestPostgres postgres = TestPostgres.get();
        String database = postgres.createDatabase();
        for (int i = 0; i < STORES; i++) {
            stores.add(SqlMetadataStore.openPostgres(PostgresTesting.config(database), Clock.systemUTC()));
        }
        return database;
    }

    @Test
    void concurrentCommitsFromManyStoresKeepOffsetsDenseAndNeverDuplicateABatch() throws Exception {
        String database = openStores();
        Topic topic = stores.get(0).createTopic(new NewTopic("orders", PARTITIONS, Map.of()));
        List<Callable<ThreadLog>> tasks = new ArrayList<>();
        for (int t = 0; t < STORES * THREADS_PER_STORE; t++) {
            MetadataStore store = stores.get(t % STORES);
            long seed = SEED + t;
            tasks.add(() -> produce(store, topic, new Random(seed)));
        }

        List<ThreadLog> logs = RoleContract.runConcurrently(tasks);

        assertThat(logs)
                .as("retries answered with another offset (seed %d)", SEED)
                .allSatisfy(log -> assertThat(log.wrongRetries()).isEmpty());
        Map<TopicPartition, List<Appended>> appended = new HashMap<>();
        logs.forEach(log -> log.appended()
                .forEach(a -> appended.computeIfAbsent(a.partition(), p -> new ArrayList<>())
                        .add(a)));
        for (int partition = 0; partition < PARTITIONS; partition++) {
            TopicPartition tp = new TopicPartition("orders", partition);
            assertDenseLogOfExactly(stores.get(partition % STORES), tp, appended.getOrDefault(tp, List.of()));
        }
        assertNoBatchStoredTwice(database);
    }

    @Test
    void deletingATopicWhileStoresCommitToItFailsOnlyItsBatches() throws Exception {
        String database = openStores();
        Topic doomed = stores.get(0).createTopic(new NewTopic("doomed", 3, Map.of()));
        Topic kept = stores.get(0).createTopic(new NewTopic("kept", 2, Map.of()));
        CountDownLatch started = new CountDownLatch(STORES);
        List<Callable<List<AppendResult>>> tasks = new ArrayList<>();
        for (MetadataStore store : stores) {
            tasks.add(() -> {
                ProduceFixture produce = new ProduceFixture(store);
                List<AppendResult> results = new ArrayList<>();
                for (int i = 0; i < COMMITS_PER_THREAD; i++) {
                    results.addAll(produce.commit(
                            produce.batch(kept, i % 2, 1),
                            produce.batch(doomed, 0, 1),
                            produce.batch(doomed, 1, 1),
                            produce.batch(doomed, 2, 1),
                            produce.batch(kept, 1, 1)));
                    if (i == 2) {
                        started.countDown();
                    }
                }
                return results;
            });
        }
        tasks.add(() -> {
            assertThat(started.await(60, TimeUnit.SECONDS)).isTrue();
            stores.get(0).deleteTopic("doomed");
            return List.of();
        });

        List<List<AppendResult>> results = RoleContract.runConcurrently(tasks);

        for (List<AppendResult> perStore : results.subList(0, STORES)) {
            for (int i = 0; i < perStore.size(); i++) {
                boolean doomedBatch = i % 5 >= 1 && i % 5 <= 3;
                AppendResult result = perStore.get(i);
                if (doomedBatch && result instanceof AppendResult.Failed failed) {
                    assertThat(failed.error()).isEqualTo(AppendError.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    assertThat(result).isInstanceOf(AppendResult.Appended.class);
                }
            }
        }
        assertThat(stores.get(1).topic("doomed")).isEmpty();
        for (int partition = 0; partition < 2; partition++) {
            TopicPartition tp = new TopicPartition("kept", partition);
            List<Appended> appended = new ArrayList<>();
            keptAppends(results).stream().filter(a -> a.partition().equals(tp)).forEach(appended::add);
            assertDenseLogOfExactly(stores.get(partition), tp, appended);
        }
    }

    @Test
    void producerIdsAndTopicsCreatedFromManyStoresAtOnceNeverCollide() throws Exception {
        String database = openStores();
        List<Callable<List<Long>>> tasks = new ArrayList<>();
        for (int t = 0; t < STORES * THREADS_PER_STORE; t++) {
            MetadataStore store = stores.get(t % STORES);
            String topic = "topic-" + t;
            tasks.add(() -> {
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < 150; i++) {
                    ids.add(store.allocateProducerId());
                }
                // Each topic takes a block of partition ids from the shared counter.
                store.createTopic(new NewTopic(topic, 5, Map.of()));
                return ids;
            });
        }

        List<Long> ids = RoleContract.runConcurrently(tasks).stream()
                .flatMap(List::stream)
                .toList();

        assertThat(ids).doesNotHaveDuplicates().hasSize(STORES * THREADS_PER_STORE * 150);
        assertThat(stores.get(0).topics()).hasSize(STORES * THREADS_PER_STORE);
    }

    /** The appended batches of "kept", from each store's results in the order the test sent them. */
    private static List<Appended> keptAppends(List<List<AppendResult>> results) {
        List<Appended> appended = new ArrayList<>();
        for (List<AppendResult> perStore : results.subList(0, STORES)) {
            for (int i = 0; i < perStore.size(); i++) {
                int commit = i / 5;
                int position = i % 5;
                if (perStore.get(i) instanceof AppendResult.Appended done && (position == 0 || position == 4)) {
                    int partition = position == 0 ? commit % 2 : 1;
                    appended.add(new Appended(new TopicPartition("kept", partition), done.baseOffset(), 1));
                }
            }
        }
        return appended;
    }

    /**
     * One producer thread: each commit holds idempotent batches for a few partitions and one plain
     * batch; some commits also carry a retry of an earlier batch, and some are committed twice.
     */
    private static ThreadLog produce(MetadataStore store, Topic topic, Random random) {
        ProduceFixture produce = new ProduceFixture(store);
        long producerId = store.allocateProducerId();
        int[] nextSequence = new int[PARTITIONS];
        Map<String, Long> offsetBySequence = new HashMap<>();
        List<Deque<BatchAppend>> recent = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            recent.add(new ArrayDeque<>());
        }
        List<Appended> appended = new ArrayList<>();
        List<String> wrongRetries = new ArrayList<>();
        for (int i = 0; i < COMMITS_PER_THREAD; i++) {
            List<BatchAppend> batches = new ArrayList<>();
            for (int partition : distinctPartitions(random, 3)) {
                int records = 1 + random.nextInt(5);
                batches.add(produce.idempotent(topic, partition, producerId, 0, nextSequence[partition], records));
                nextSequence[partition] += records;
            }
            batches.add(produce.batch(topic, random.nextInt(PARTITIONS), 1 + random.nextInt(3)));
            Deque<BatchAppend> window = recent.get(random.nextInt(PARTITIONS));
            if (!window.isEmpty() && random.nextInt(3) == 0) {
                BatchAppend original = new ArrayList<>(window).get(random.nextInt(window.size()));
                batches.add(produce.idempotent(
                        topic,
                        original.topicPartition().partition(),
                        producerId,
                        0,
                        original.producer().baseSequence(),
                        original.recordCount()));
            }
            ObjectCommit commit = new ObjectCommit(produce.registerUpload(), batches.size() * 100L, batches);
            List<AppendResult> results = committed(store.commit(commit));
            List<AppendResult> repeated = random.nextInt(5) == 0 ? committed(store.commit(commit)) : null;
            for (int b = 0; b < batches.size(); b++) {
                BatchAppend batch = batches.get(b);
                String key = batch.topicPartition() + "/" + batch.producer().producerId() + "/"
                        + batch.producer().baseSequence();
                if (results.get(b) instanceof AppendResult.Appended done) {
                    appended.add(new Appended(batch.topicPartition(), done.baseOffset(), batch.recordCount()));
                    if (batch.producer().idempotent()) {
                        offsetBySequence.put(key, done.baseOffset());
                        Deque<BatchAppend> last =
                                recent.get(batch.topicPartition().partition());
                        last.addLast(batch);
                        if (last.size() > RETRY_WINDOW) {
                            last.removeFirst();
                        }
                    }
                } else {
                    checkDuplicate(key, results.get(b), offsetBySequence, wrongRetries);
                }
                if (repeated != null && batch.producer().idempotent()) {
                    checkDuplicate(key, repeated.get(b), offsetBySequence, wrongRetries);
                }
            }
        }
        return new ThreadLog(appended, wrongRetries);
    }

    private static void checkDuplicate(
            String key, AppendResult result, Map<String, Long> offsetBySequence, List<String> wrongRetries) {
        Long original = offsetBySequence.get(key);
        if (!(result instanceof AppendResult.Duplicate duplicate)
                || original == null
                || duplicate.baseOffset() != original) {
            wrongRetries.add(key + ": " + result + ", first appended at " + original);
        }
    }

    private static List<AppendResult> committed(CommitOutcome outcome) {
        assertThat(outcome).as("seed %d", SEED).isInstanceOf(CommitOutcome.Committed.class);
        return ((CommitOutcome.Committed) outcome).results();
    }

    private static List<Integer> distinctPartitions(Random random, int count) {
        List<Integer> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(p);
        }
        Collections.shuffle(partitions, random);
        return partitions.subList(0, count);
    }

    /** The partition's log holds exactly the appended batches, back to back from offset 0. */
    private static void assertDenseLogOfExactly(
            MetadataStore store, TopicPartition partition, List<Appended> appended) {
        List<BatchCoordinate> log = store.batches(partition, 0, 100_000);
        long next = 0;
        for (BatchCoordinate batch : log) {
            assertThat(batch.baseOffset())
                    .as("batch after offset %d of %s (seed %d)", next, partition, SEED)
                    .isEqualTo(next);
            next = batch.nextOffset();
        }
        assertThat(store.offsets(partition).highWatermark()).isEqualTo(next);
        assertThat(log)
                .extracting(BatchCoordinate::baseOffset, b -> (int) (b.nextOffset() - b.baseOffset()))
                .as("the log of %s against what producers were told (seed %d)", partition, SEED)
                .containsExactlyInAnyOrderElementsOf(appended.stream()
                        .map(a -> Tuple.tuple(a.baseOffset(), a.records()))
                        .toList());
    }

    /** NoDuplicateAppend, checked on the rows themselves: one row per producer, partition and sequence. */
    private static void assertNoBatchStoredTwice(String database) throws Exception {
        try (Connection connection = DriverManager.getConnection(database, TestPostgres.USER, TestPostgres.PASSWORD);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT partition_id, producer_id, base_sequence, COUNT(*)"
                        + " FROM batches WHERE producer_id >= 0 GROUP BY partition_id, producer_id, base_sequence"
                        + " HAVING COUNT(*) > 1")) {
            List<String> duplicates = new ArrayList<>();
            while (rows.next()) {
                duplicates.add(rows.getLong(1) + "/" + rows.getLong(2) + "/" + rows.getInt(3) + " x" + rows.getInt(4));
            }
            assertThat(duplicates).as("batches stored twice (seed %d)", SEED).isEmpty();
        }
    }
}
