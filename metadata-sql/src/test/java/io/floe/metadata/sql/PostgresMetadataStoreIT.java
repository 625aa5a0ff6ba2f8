package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.testkit.metadata.MetadataStoreContract;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.postgres.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The metadata contract on a real PostgreSQL server ({@link TestPostgres}), each test on a fresh
 * schema of this class's database, plus what only a shared database has: several stores at once,
 * start-up failures, a commit whose answer is lost.
 */
class PostgresMetadataStoreIT extends MetadataStoreContract {

    private static final long TIMEOUT_SECONDS = 60;

    private static TestPostgres postgres;
    private static String database;

    @BeforeAll
    static void startPostgres() {
        postgres = TestPostgres.get();
        database = postgres.createDatabase();
    }

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openPostgres(PostgresTesting.config(postgres.createSchema(database)), Clock.systemUTC());
    }

    @Test
    void theCliUrlFormWithCredentialsOpensTheStore() {
        String url = "postgresql://" + TestPostgres.USER + ":" + TestPostgres.PASSWORD + "@127.0.0.1:"
                + postgres.port() + databasePath(postgres.createSchema(database));
        try (MetadataStore store = SqlMetadataStore.openPostgres(url, Clock.systemUTC())) {
            store.createTopic(new NewTopic("orders", 1, Map.of()));

            assertThat(store.topics()).hasSize(1);
            assertThat(store.describe()).isEqualTo("postgresql://127.0.0.1:" + postgres.port() + "/"
                    + database.substring(database.lastIndexOf('/') + 1));
        }
    }

    @Test
    void aRefusedLoginFailsAtStartWithTheServersReasonAndNoPassword() {
        PostgresConfig config = PostgresConfig.of(database, TestPostgres.USER, "wrong-password");

        assertThatThrownBy(() -> SqlMetadataStore.openPostgres(config, Clock.systemUTC()))
                .isInstanceOfSatisfying(MetadataStoreException.class, e -> assertThat(e.retriable()).isFalse())
                .hasMessageContaining("password authentication failed")
                .hasMessageContaining("postgresql://127.0.0.1:" + postgres.port())
                .hasMessageNotContaining("wrong-password");
    }

    @Test
    void anUnreachableDatabaseFailsAtStartAsRetriable() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        PostgresConfig config = PostgresConfig.of("jdbc:postgresql://127.0.0.1:" + closedPort + "/floe",
                TestPostgres.USER, TestPostgres.PASSWORD).withConnectionTimeout(Duration.ofSeconds(2));

        assertThatThrownBy(() -> SqlMetadataStore.openPostgres(config, Clock.systemUTC()))
                .isInstanceOfSatisfying(MetadataStoreException.class, e -> assertThat(e.retriable()).isTrue())
                .hasMessageContaining("postgresql://127.0.0.1:" + closedPort + "/floe failed to open");
    }

    @Test
    void storesOnOneDatabaseShareTopicsOffsetsAndIds() {
        String schema = postgres.createSchema(database);
        try (MetadataStore first = SqlMetadataStore.openPostgres(PostgresTesting.config(schema), Clock.systemUTC());
                MetadataStore second = SqlMetadataStore.openPostgres(PostgresTesting.config(schema), Clock.systemUTC())) {
            Topic topic = first.createTopic(new NewTopic("orders", 2, Map.of("retention.ms", "1000")));
            ProduceFixture viaFirst = new ProduceFixture(first);
            ProduceFixture viaSecond = new ProduceFixture(second);

            assertThat(second.topic("orders")).contains(topic);
            assertThat(viaFirst.commit(viaFirst.batch(topic, 0, 3))).containsExactly(new AppendResult.Appended(0, 0));
            assertThat(viaSecond.commit(viaSecond.batch(topic, 0, 2))).containsExactly(new AppendResult.Appended(3, 0));
            assertThat(first.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 5));
            assertThatThrownBy(() -> second.createTopic(new NewTopic("orders", 1, Map.of())))
                    .isInstanceOf(TopicExistsException.class);
            Topic other = second.createTopic(new NewTopic("payments", 1, Map.of()));
            assertThat(viaFirst.commit(viaFirst.batch(other, 0, 1))).containsExactly(new AppendResult.Appended(0, 0));
            assertThat(first.allocateProducerId()).isNotEqualTo(second.allocateProducerId());
        }
    }

    @Test
    void storesStartingAtOnceOnAnEmptyDatabaseApplyEachMigrationOnce() throws Exception {
        String empty = postgres.createDatabase();
        List<Callable<MetadataStore>> opens = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            opens.add(() -> SqlMetadataStore.openPostgres(PostgresTesting.config(empty), Clock.systemUTC()));
        }

        List<MetadataStore> stores = runTogether(opens);
        try {
            stores.get(0).createTopic(new NewTopic("orders", 1, Map.of()));
            assertThat(stores.get(3).topic("orders")).isPresent();
        } finally {
            stores.forEach(MetadataStore::close);
        }
        try (Connection connection = DriverManager.getConnection(empty, TestPostgres.USER, TestPostgres.PASSWORD);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*), MAX(version) FROM schema_version")) {
            rows.next();
            assertThat(rows.getInt(1)).isEqualTo(Migrations.ALL.size());
            assertThat(rows.getInt(2)).isEqualTo(Migrations.LATEST);
        }
    }

    @Test
    void concurrentCreationOfOneTopicFromManyStoresCreatesItOnce() throws Exception {
        String schema = postgres.createSchema(database);
        List<MetadataStore> stores = new ArrayList<>();
        try {
            List<Callable<String>> creates = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                MetadataStore store = SqlMetadataStore.openPostgres(PostgresTesting.config(schema), Clock.systemUTC());
                stores.add(store);
                creates.add(() -> {
                    try {
                        return store.createTopic(new NewTopic("orders", 3, Map.of())).id().toString();
                    } catch (TopicExistsException e) {
                        return "exists";
                    }
                });
            }

            List<String> outcomes = runTogether(creates);

            assertThat(outcomes).filteredOn(outcome -> !outcome.equals("exists")).hasSize(1);
            assertThat(stores.get(0).topics()).hasSize(1);
            assertThat(stores.get(0).topic("orders").orElseThrow().id().toString()).isIn(outcomes);
        } finally {
            stores.forEach(MetadataStore::close);
        }
    }

    @Test
    void aCommitWhoseAnswerIsLostIsUnknownAndItsRetryAppendsNothing() throws Exception {
        String schema = postgres.createSchema(database);
        try (CommitCuttingProxy proxy = CommitCuttingProxy.start(postgres.port());
                MetadataStore store = SqlMetadataStore.openPostgres(
                        PostgresTesting.config(schema.replace(":" + postgres.port() + "/", ":" + proxy.port() + "/")),
                        Clock.systemUTC())) {
            ProduceFixture produce = new ProduceFixture(store);
            Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
            long producerId = store.allocateProducerId();
            ObjectKey object = produce.registerUpload();
            BatchAppend batch = produce.idempotent(topic, 0, producerId, 0, 0, 3);

            proxy.cutAfterNextCommit();
            CommitOutcome lost = produce.commit(object, batch);

            assertThat(lost).isInstanceOf(CommitOutcome.Unknown.class);
            assertThat(produce.commit(object, batch))
                    .isEqualTo(new CommitOutcome.Committed(List.of(new AppendResult.Duplicate(0, 0))));
            // The producer's own retry, in the next flush's object, resolves to the same offset.
            assertThat(produce.commit(produce.idempotent(topic, 0, producerId, 0, 0, 3)))
                    .containsExactly(new AppendResult.Duplicate(0, 0));
            assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 3));
            assertThat(store.batches(new TopicPartition("orders", 0), 0, 10)).hasSize(1);
        }
    }

    @Test
    void aClosedStoreRefusesWorkAndReportsCommitsAsUnknown() {
        MetadataStore store = createStore();
        store.close();
        store.close();

        assertThatThrownBy(store::topics).isInstanceOf(MetadataStoreException.class).hasMessageContaining("closed");
        assertThat(store.commit(new ObjectCommit(new ObjectKey("segments/00/late.seg"), 0,
                List.of()))).isInstanceOf(CommitOutcome.Unknown.class);
    }

    private static String databasePath(String jdbcUrl) {
        return jdbcUrl.substring(jdbcUrl.indexOf('/', "jdbc:postgresql://".length()));
    }

    /** Starts all tasks together (a barrier, not a sleep) and returns their results in task order. */
    static <T> List<T> runTogether(List<Callable<T>> tasks) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(tasks.size());
        try {
            CyclicBarrier start = new CyclicBarrier(tasks.size());
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(executor.submit(() -> {
                    start.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    return task.call();
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            executor.shutdownNow();
        }
    }
}
