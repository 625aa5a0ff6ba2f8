package io.floe.maintenance.producers;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransactionalIdExpiryTest {

    private static final Instant START = Instant.parse("2026-12-01T00:00:00Z");
    private static final Duration EXPIRATION = Duration.ofDays(7);

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(START);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private MetadataStore store;

    @BeforeEach
    void open() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"), clock);
        store.createTopic(new NewTopic("orders", 1, Map.of()));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void forgetsTheIdsIdleForTheExpirationAndKeepsOneWithAnOpenTransaction() {
        store.initProducer("idle", 60_000, null, START);
        TransactionOutcome.Done hanging = (TransactionOutcome.Done) store.initProducer("hanging", 60_000, null, START);
        store.addPartitions("hanging", hanging.producer(), List.of(new TopicPartition("orders", 0)), START);
        clock.set(START.plus(Duration.ofDays(3)));
        store.initProducer("recent", 60_000, null, clock.instant());
        TransactionalIdExpiry expiry = new TransactionalIdExpiry(store, EXPIRATION, meters);

        clock.set(START.plus(EXPIRATION));
        assertThat(expiry.run(clock.instant())).isEqualTo("expired=0 idleFor=PT168H");
        clock.set(START.plus(EXPIRATION).plusMillis(1));
        assertThat(expiry.run(clock.instant())).isEqualTo("expired=1 idleFor=PT168H");

        assertThat(store.transaction("idle")).isEmpty();
        assertThat(store.transaction("hanging"))
                .as("its transaction is open: the timeout aborts it first")
                .isPresent();
        assertThat(store.transaction("recent")).isPresent();
        assertThat(meters.counter("floe.transactional.ids.expired").count()).isEqualTo(1);
    }
}
