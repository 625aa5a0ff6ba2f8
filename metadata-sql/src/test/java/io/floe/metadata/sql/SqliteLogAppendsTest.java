package io.floe.metadata.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.testkit.metadata.LogAppendsContract;
import io.floe.testkit.metadata.ProduceFixture;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link LogAppendsContract} on an embedded SQLite store, each test on a fresh file, plus what is
 * particular to SQLite.
 */
class SqliteLogAppendsTest extends LogAppendsContract {

    @TempDir
    Path directory;

    @Override
    protected MetadataStore createStore() {
        return SqlMetadataStore.openSqlite(directory.resolve("contract").resolve("metadata.db"));
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
            assertThat(produce.commit(
                            produce.idempotent(topic, 1, producerId, 0, 0, 4),
                            produce.idempotent(topic, 1, producerId, 0, 4, 1)))
                    .containsExactly(new AppendResult.Duplicate(0, 0), new AppendResult.Appended(7, 0));
        }
    }

    @Test
    void producerIdsStartAtOneThousand() {
        assertThat(store().allocateProducerId()).isEqualTo(1000);
        assertThat(store().allocateProducerId()).isEqualTo(1001);
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
            produce.commit(
                    shared,
                    produce.batch(orders, 0, 1),
                    produce.batch(orders, 1, 1),
                    produce.batch(payments, 0, 1),
                    produce.batch(gone, 0, 1));

            assertThat(objectRow(raw, pending)).isEqualTo("REGISTERED/0");
            assertThat(objectRow(raw, shared)).isEqualTo("COMMITTED/3");

            store.deleteTopic("orders");

            assertThat(objectRow(raw, shared)).isEqualTo("COMMITTED/1");
        }
    }

    private static String objectRow(Connection connection, ObjectKey object) throws SQLException {
        return queryString(
                connection, "SELECT state || '/' || ref_count FROM objects WHERE object_key = '" + object + "'");
    }

    private static String queryString(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
