package io.floe.maintenance.producers;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerStateExpiryTest {

    private static final Instant START = Instant.parse("2026-12-01T00:00:00Z");
    private static final Duration EXPIRATION = Duration.ofDays(1);

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(START);
    private MetadataStore store;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @BeforeEach
    void open() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"), clock);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void forgetsAProducerOnlyOnThePartitionsItLeftIdle() {
        ProduceFixture produce = new ProduceFixture(store);
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        long producer = store.allocateProducerId();
        produce.commit(
                produce.idempotent(topic, 0, producer, 0, 0, 5), produce.idempotent(topic, 1, producer, 0, 0, 5));
        clock.set(START.plus(Duration.ofHours(20)));
        produce.commit(produce.idempotent(topic, 1, producer, 0, 5, 5));
        ProducerStateExpiry expiry = new ProducerStateExpiry(store, EXPIRATION, meters);

        clock.set(START.plus(Duration.ofHours(23)));
        assertThat(expiry.run(clock.instant())).isEqualTo("expired=0 idleFor=PT24H");
        clock.set(START.plus(Duration.ofHours(25)));
        assertThat(expiry.run(clock.instant())).isEqualTo("expired=1 idleFor=PT24H");

        assertThat(store.producers(new TopicPartition("orders", 0))).isEmpty();
        assertThat(store.producers(new TopicPartition("orders", 1))).hasSize(1);
        assertThat(produce.commit(produce.idempotent(topic, 1, producer, 0, 5, 5)))
                .containsExactly(new AppendResult.Duplicate(5, 0));
        assertThat(meters.counter("floe.producers.expired").count()).isEqualTo(1);
    }
}
