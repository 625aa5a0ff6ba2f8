package io.floe.agent.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StableOffsetLagTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @TempDir
    Path directory;

    private MetadataStore store;
    private Topic orders;
    private ProduceFixture produce;

    @BeforeEach
    void open() {
        store = SqlMetadataStore.openSqlite(directory.resolve("metadata.db"), clock);
        orders = store.createTopic(new NewTopic("orders", 3, Map.of()));
        produce = new ProduceFixture(store);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void eachLedPartitionWithAnOpenTransactionReportsItsLagUntilTheTransactionEnds() {
        Set<TopicPartition> led = Set.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1));
        StableOffsetLag lag = new StableOffsetLag(store, led::contains, meters);
        ProducerEpoch producer = init();
        List<TopicPartition> written = List.of(
                new TopicPartition("orders", 0), new TopicPartition("orders", 1), new TopicPartition("orders", 2));
        assertThat(store.addPartitions("tx", producer, written, clock.instant()))
                .isInstanceOf(TransactionOutcome.Done.class);
        produce.commit(produce.batch(orders, 0, 2));
        produce.commit(produce.transactional(orders, 0, producer, 0, 3, TransactionalAppend.IN_TRANSACTION));
        produce.commit(produce.batch(orders, 0, 1));
        produce.commit(produce.transactional(orders, 2, producer, 0, 5, TransactionalAppend.IN_TRANSACTION));

        lag.measure();

        assertThat(lagOf(0)).isEqualTo(4.0); // offsets 2-5: three of the transaction, one after it
        assertThat(meters.find("floe.partition.lso.lag").tag("partition", "1").gauge())
                .as("nothing written to partition 1: it is stable")
                .isNull();
        assertThat(meters.find("floe.partition.lso.lag").tag("partition", "2").gauge())
                .as("partition 2 is led by another agent")
                .isNull();
        assertThat(meters.get("floe.partition.lso.lag.max").gauge().value()).isEqualTo(4.0);

        store.endTransaction("tx", producer, true, false, clock.instant());
        lag.measure();

        assertThat(meters.find("floe.partition.lso.lag").gauges()).isEmpty();
        assertThat(meters.get("floe.partition.lso.lag.max").gauge().value()).isZero();
    }

    private double lagOf(int partition) {
        Gauge gauge = meters.get("floe.partition.lso.lag")
                .tags("topic", "orders", "partition", Integer.toString(partition))
                .gauge();
        return gauge.value();
    }

    private ProducerEpoch init() {
        return ((TransactionOutcome.Done) store.initProducer("tx", 60_000, null, clock.instant())).producer();
    }
}
