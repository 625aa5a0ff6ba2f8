package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.testkit.metadata.MetadataStoreContract;
import io.floe.testkit.metadata.ProduceFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteMetadataStoreTest extends MetadataStoreContract {

    @TempDir
    Path directory;

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openSqlite(directory.resolve("contract").resolve("metadata.db"));
    }

    @Test
    void aSecondStoreOnTheSameFileFailsUntilTheFirstCloses() {
        Path file = directory.resolve("locked.db");
        MetadataStore first = SqlMetadataStore.openSqlite(file);

        assertThatThrownBy(() -> SqlMetadataStore.openSqlite(file))
                .isInstanceOfSatisfying(MetadataStoreException.class, e -> assertThat(e.retriable()).isFalse())
                .hasMessageContaining(file.toString())
                .hasMessageContaining("another Floe agent is using this embedded metadata store");

        first.close();
        SqlMetadataStore.openSqlite(file).close();
    }

    @Test
    void aStoreHeldByAnotherProcessCannotBeOpened() throws Exception {
        Path file = directory.resolve("other-process.db");
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LockHolder.class.getName(), file.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (BufferedReader output = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(output.readLine()).startsWith("opened sqlite:");

            assertThatThrownBy(() -> SqlMetadataStore.openSqlite(file))
                    .isInstanceOf(MetadataStoreException.class)
                    .hasMessageContaining("another Floe agent is using this embedded metadata store");

            holder.getOutputStream().close();
            assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(holder.exitValue()).isZero();
        } finally {
            holder.destroyForcibly();
        }
        SqlMetadataStore.openSqlite(file).close();
    }

    @Test
    void dataSurvivesCloseAndReopen() {
        Path file = directory.resolve("durable.db");
        Topic topic;
        long producerId;
        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            ProduceFixture produce = new ProduceFixture(store);
            topic = store.createTopic(new NewTopic("orders", 2, Map.of("retention.ms", "1000")));
            producerId = store.allocateProducerId();
            produce.commit(produce.idempotent(topic, 1, producerId, 0, 0, 4), produce.batch(topic, 1, 3));
        }

        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            ProduceFixture produce = new ProduceFixture(store);
            assertThat(store.topic("orders")).contains(topic);
            TopicPartition partition = new TopicPartition("orders", 1);
            assertThat(store.offsets(partition)).isEqualTo(new LogOffsets(0, 7));
            assertThat(store.batches(partition, 0, 10)).hasSize(2);
            assertThat(store.allocateProducerId()).isGreaterThan(producerId);
            assertThat(produce.commit(produce.idempotent(topic, 1, producerId, 0, 0, 4), produce.idempotent(topic, 1, producerId, 0, 4, 1)))
                    .containsExactly(new AppendResult.Duplicate(0, 0), new AppendResult.Appended(7, 0));
        }
    }

    /** The file lock says the earlier process is gone: its leases need not run out first. */
    @Test
    void reopeningAnEmbeddedStoreEndsTheLeasesOfTheProcessBefore() {
        Path file = directory.resolve("restart.db");
        Instant now = Instant.now();
        Duration ttl = Duration.ofHours(1);
        Duration session = Duration.ofSeconds(45);
        CoordinatorLease before;
        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            assertThat(store.allocateNodeId("agent-before", now, ttl).nodeId()).isZero();
            before = store.acquireCoordinator("billing", "agent-before", now, ttl, session).orElseThrow();
        }

        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            Instant restarted = Instant.now();
            assertThat(store.allocateNodeId("agent-after", restarted, ttl).nodeId()).isZero();
            CoordinatorLease after = store.acquireCoordinator("billing", "agent-after", restarted, ttl, session)
                    .orElseThrow();
            assertThat(after.epoch()).isEqualTo(before.epoch() + 1);
            // The earlier process's consumers may still be alive: their sessions are waited for, from the reopen.
            assertThat(after.priorMembersUntil()).isBetween(now.plus(session), restarted.plus(session));
        }
    }

    @Test
    void groupOffsetsSurviveCloseAndReopen() {
        Path file = directory.resolve("groups.db");
        TopicPartition partition = new TopicPartition("orders", 2);
        CommittedOffset committed = new CommittedOffset(42, 7, "{\"owner\":\"a\"}", 1_700_000_000_000L);
        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            store.commitOffsets("billing", Map.of(partition, committed));
        }

        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            assertThat(store.offsetGroups()).containsExactly("billing");
            assertThat(store.committedOffsets("billing")).containsExactly(Map.entry(partition, committed));
        }
    }

    @Test
    void producerIdsStartAtOneThousand() {
        assertThat(store().allocateProducerId()).isEqualTo(1000);
        assertThat(store().allocateProducerId()).isEqualTo(1001);
    }

    @Test
    void openingCreatesTheDirectoriesAndRecordsTheSchemaVersion() throws SQLException {
        Path file = directory.resolve("a").resolve("b").resolve("metadata.db");
        try (MetadataStore store = SqlMetadataStore.openSqlite(file)) {
            assertThat(store.describe()).isEqualTo("sqlite:" + file.toAbsolutePath());
        }

        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            assertThat(Migrations.currentVersion(connection)).isEqualTo(Migrations.LATEST);
            assertThat(queryString(connection, "PRAGMA journal_mode")).isEqualTo("wal");
        }
    }

    @Test
    void aDatabaseFromANewerFloeIsRefused() throws SQLException {
        Path file = directory.resolve("newer.db");
        SqlMetadataStore.openSqlite(file).close();
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO schema_version (version, description, applied_at) VALUES (999, 'future', 0)");
        }

        assertThatThrownBy(() -> SqlMetadataStore.openSqlite(file))
                .isInstanceOf(MetadataStoreException.class)
                .hasMessageContaining("schema version 999")
                .hasMessageContaining("newer than this Floe supports (" + Migrations.LATEST + ")");
        // The failed open released the lock.
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM schema_version WHERE version = 999");
        }
        SqlMetadataStore.openSqlite(file).close();
    }

    @Test
    void operationsOnAClosedStoreFail() {
        MetadataStore store = SqlMetadataStore.openSqlite(directory.resolve("closed.db"));
        store.close();
        store.close();

        assertThatThrownBy(() -> store.topics()).isInstanceOf(MetadataStoreException.class).hasMessageContaining("closed");
        assertThat(store.commit(new ObjectCommit(new ObjectKey("segments/00/late.seg"), 0, List.of())))
                .isInstanceOf(CommitOutcome.Unknown.class);
    }

    @Test
    void objectsAreRegisteredThenCommittedWithTheirReferenceCount() throws SQLException {
        Path file = directory.resolve("objects.db");
        try (MetadataStore store = SqlMetadataStore.openSqlite(file);
                Connection raw = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            ProduceFixture produce = new ProduceFixture(store);
            Topic orders = store.createTopic(new NewTopic("orders", 2, Map.of()));
            Topic payments = store.createTopic(new NewTopic("payments", 1, Map.of()));
            ObjectKey pending = produce.registerUpload();
            ObjectKey shared = produce.registerUpload();
            Topic gone = new Topic("gone", UUID.randomUUID(), 1, Map.of());
            produce.commit(shared, produce.batch(orders, 0, 1), produce.batch(orders, 1, 1),
                    produce.batch(payments, 0, 1), produce.batch(gone, 0, 1));

            assertThat(objectRow(raw, pending)).isEqualTo("REGISTERED/0");
            assertThat(objectRow(raw, shared)).isEqualTo("COMMITTED/3");

            store.deleteTopic("orders");

            assertThat(objectRow(raw, shared)).isEqualTo("COMMITTED/1");
        }
    }

    private static String objectRow(Connection connection, ObjectKey object) throws SQLException {
        return queryString(connection, "SELECT state || '/' || ref_count FROM objects WHERE object_key = '" + object + "'");
    }

    private static String queryString(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
