package io.floe.maintenance.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.config.TopicConfigs;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retention rounds on a real SQLite store, one partition of which the store refuses to truncate. */
class RetentionTest {

    private static final long OLD = ProduceFixture.DEFAULT_TIMESTAMP;
    private static final Instant NOW = Instant.ofEpochMilli(OLD).plus(Duration.ofDays(1));
    private static final TopicPartition BROKEN = new TopicPartition("a", 0);

    @TempDir
    Path directory;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private MetadataStore store;

    @BeforeEach
    void open() {
        store = SqlMetadataStore.openSqlite(directory.resolve("metadata.db"));
        Map<String, String> hourly = Map.of(TopicConfigs.RETENTION_MS, "3600000");
        Topic a = store.createTopic(new NewTopic("a", 2, hourly));
        Topic b = store.createTopic(new NewTopic("b", 1, hourly));
        ProduceFixture produce = new ProduceFixture(store);
        for (Topic topic : new Topic[] {a, b}) {
            for (int partition = 0; partition < topic.partitionCount(); partition++) {
                produce.commit(
                        produce.batch(topic, partition, 2, OLD),
                        produce.batch(topic, partition, 2, OLD),
                        produce.batch(topic, partition, 2, NOW.toEpochMilli()));
            }
        }
    }

    @AfterEach
    void close() {
        store.close();
    }

    /**
     * Retention used to catch only a deleted topic: one partition whose truncation failed (the foreign
     * key an under-counted object breaks) ended every round there, and no later topic was retained.
     */
    @Test
    void aPartitionThatFailsIsCountedAndTheRoundGoesOnWithTheOthers() {
        Retention retention = new Retention(
                MaintenanceConfig.DEFAULTS,
                failingOn(store, BROKEN),
                failingOn(store, BROKEN),
                failingOn(store, BROKEN),
                new TopicConfigs(Map.of()),
                meters);

        String summary = retention.run(NOW);

        assertThat(store.offsets(BROKEN)).isEqualTo(new LogOffsets(0, 6));
        assertThat(store.offsets(new TopicPartition("a", 1))).isEqualTo(new LogOffsets(4, 6));
        assertThat(store.offsets(new TopicPartition("b", 0))).isEqualTo(new LogOffsets(4, 6));
        assertThat(meters.get("floe.retention.failures").counter().count()).isEqualTo(1);
        assertThat(summary).contains("partitions=2", "failed=1");
    }

    @Test
    void theHoldTheStoreEnforcesIsCountedAsHeldBack() {
        store.holdRetention("tableflow", "b", Map.of(0, 2L));
        Retention retention =
                new Retention(MaintenanceConfig.DEFAULTS, store, store, store, new TopicConfigs(Map.of()), meters);

        String summary = retention.run(NOW);

        assertThat(store.offsets(new TopicPartition("b", 0))).isEqualTo(new LogOffsets(2, 6));
        assertThat(store.offsets(new TopicPartition("a", 0))).isEqualTo(new LogOffsets(4, 6));
        assertThat(meters.get("floe.retention.held.back").counter().count()).isEqualTo(1);
        assertThat(summary).contains("heldBack=1");
    }

    /** The store, except that truncating {@code broken} fails as a constraint violation would. */
    private static MetadataStore failingOn(MetadataStore store, TopicPartition broken) {
        return new ForwardingMetadataStore(store) {
            @Override
            public long truncateLog(TopicPartition topicPartition, long newLogStart, Instant deleteAfter) {
                if (broken.equals(topicPartition)) {
                    throw new MetadataStoreException(
                            "injected: foreign key violation truncating " + broken, false, null);
                }
                return super.truncateLog(topicPartition, newLogStart, deleteAfter);
            }
        };
    }
}
