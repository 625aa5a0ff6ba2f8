package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ActiveProducer;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link LogReads}: offsets, batches by offset and by timestamp, partition sizes,
 * producers and the count of log rewrites. Extend it next to each implementation; every method of the
 * role must be called by some test here (see {@link RoleContract}).
 */
public abstract class LogReadsContract extends RoleContract {

    private static final Instant NOW =
            Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP).plus(Duration.ofDays(1));

    /** The topic of the tests that make one named "events". */
    private Topic topic;

    @Override
    protected final Class<?> role() {
        return LogReads.class;
    }

    @Test
    void offsetsOfAPartitionOutOfRangeThrowUnknownTopic() {
        store.createTopic(new NewTopic("orders", 2, Map.of()));

        assertThatThrownBy(() -> store.offsets(new TopicPartition("orders", 2)))
                .isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void aLogWithoutTransactionsIsNotUnstable() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(produce.batch(topic, 0, 3));

        assertThat(store.unstableLogs()).isEmpty();
    }

    @Test
    void batchesOfSeveralPartitionsAreReadAsEachAlone() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        ObjectKey object = produce.registerUpload();
        produce.commit(
                object,
                produce.batch(topic, 0, 3),
                produce.batch(topic, 1, 2),
                produce.batch(topic, 0, 4),
                produce.batch(topic, 1, 5));
        TopicPartition p0 = new TopicPartition("orders", 0);
        TopicPartition p1 = new TopicPartition("orders", 1);

        List<List<BatchCoordinate>> answers = store.batches(List.of(
                new BatchesQuery(p1, 2, 10),
                new BatchesQuery(p0, 0, 1),
                new BatchesQuery(new TopicPartition("ghost", 0), 0, 10),
                new BatchesQuery(p0, 3, 0)));

        assertThat(answers).containsExactly(store.batches(p1, 2, 10), store.batches(p0, 0, 1), List.of(), List.of());
        assertThat(answers.get(0)).extracting(BatchCoordinate::baseOffset).containsExactly(2L);
        assertThat(answers.get(1)).extracting(BatchCoordinate::baseOffset).containsExactly(0L);
        assertThat(store.batches(List.of())).isEmpty();
    }

    @Test
    void entriesOfALogWithoutTransactionsAreItsBatches() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(produce.batch(topic, 0, 3), produce.batch(topic, 0, 2), produce.batch(topic, 1, 1));
        TopicPartition p0 = new TopicPartition("orders", 0);

        List<List<LogEntry>> answers = store.entries(List.of(
                new BatchesQuery(p0, 3, 10),
                new BatchesQuery(new TopicPartition("ghost", 0), 0, 10),
                new BatchesQuery(p0, 0, 0)));

        assertThat(answers).containsExactly(List.copyOf(store.batches(p0, 3, 10)), List.of(), List.of());
        assertThat(store.entries(List.of())).isEmpty();
        assertThat(store.offsets(p0).lastStableOffset()).isEqualTo(5);
    }

    @Test
    void aLogWithoutTransactionsHasNoAbortedOnes() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.batch(topic, 0, 3));

        assertThat(store.abortedTransactions(new TopicPartition("orders", 0), 0, 3))
                .isEmpty();
        assertThat(store.abortedTransactions(new TopicPartition("ghost", 0), 0, 3))
                .isEmpty();
    }

    @Test
    void batchesStartAtTheBatchHoldingTheFromOffsetAndArePaged() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        for (int i = 0; i < 5; i++) {
            produce.commit(produce.batch(topic, 0, 10));
        }
        TopicPartition partition = new TopicPartition("orders", 0);

        assertThat(baseOffsets(store.batches(partition, 0, 2))).containsExactly(0L, 10L);
        assertThat(baseOffsets(store.batches(partition, -5, 1))).containsExactly(0L);
        assertThat(baseOffsets(store.batches(partition, 15, 2))).containsExactly(10L, 20L);
        assertThat(baseOffsets(store.batches(partition, 19, 100))).containsExactly(10L, 20L, 30L, 40L);
        assertThat(baseOffsets(store.batches(partition, 20, 100))).containsExactly(20L, 30L, 40L);
        assertThat(baseOffsets(store.batches(partition, 49, 100))).containsExactly(40L);
        assertThat(store.batches(partition, 50, 100)).isEmpty();
        assertThat(store.batches(partition, 0, 0)).isEmpty();
        assertThat(store.batches(new TopicPartition("missing", 0), 0, 10)).isEmpty();
        assertThat(store.batches(new TopicPartition("orders", 1), 0, 10)).isEmpty();
    }

    @Test
    void logRewritesGrowWhenBatchesMoveOrGoButNotWhenTheyAreAppended() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        long start = store.logRewrites();
        produce.commit(produce.batch(topic, 0, 5), produce.batch(topic, 0, 5));
        assertThat(store.logRewrites()).as("after appends").isEqualTo(start);

        store.deleteRecords(new TopicPartition("orders", 0), 5);
        long afterLogStartMoved = store.logRewrites();
        store.deleteTopic("orders");

        assertThat(afterLogStartMoved).isGreaterThan(start);
        assertThat(store.logRewrites()).isGreaterThan(afterLogStartMoved);
    }

    @Test
    void logRewritesGrowWhenCommittedBatchesMoveOrGoAndOnlyThen() {
        topic = store.createTopic(new NewTopic("events", 2, Map.of()));
        long initial = store.logRewrites();
        committed(produce.batch(topic, 0, 5));
        committed(produce.batch(topic, 0, 5));
        store.deleteRecords(tp(0), 0);
        store.truncateLog(tp(0), 0, NOW);
        assertThat(store.logRewrites())
                .as("appends and moves of the log start that move nothing")
                .isEqualTo(initial);

        List<BatchCoordinate> plan = store.batches(tp(0), 0, 100);
        assertThat(store.rewrite(rewriteInto(produce.registerUpload(), plan), NOW))
                .isInstanceOf(RewriteOutcome.Rewritten.class);
        assertThat(store.logRewrites()).as("after a rewrite").isEqualTo(initial + 1);
        assertThat(store.rewrite(rewriteInto(produce.registerUpload(), plan), NOW))
                .isInstanceOf(RewriteOutcome.Rejected.class);
        assertThat(store.logRewrites()).as("a rejected rewrite").isEqualTo(initial + 1);
        store.truncateLog(tp(0), 5, NOW);
        assertThat(store.logRewrites()).as("after a truncation").isEqualTo(initial + 2);
        store.deleteRecords(tp(0), 7);
        assertThat(store.logRewrites()).as("after deleted records").isEqualTo(initial + 3);
        store.deleteTopic(topic.name());
        assertThat(store.logRewrites()).as("after a deleted topic").isEqualTo(initial + 4);
    }

    @Test
    void timestampLookupsFindTheFirstAndTheLargest() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(
                produce.batch(topic, 0, 1, 100),
                produce.batch(topic, 0, 1, 300),
                produce.batch(topic, 0, 1, 200),
                produce.batch(topic, 0, 1, 300),
                produce.batch(topic, 0, 1, 50));
        TopicPartition partition = new TopicPartition("orders", 0);

        assertThat(store.firstBatchAtOrAfter(partition, 0))
                .hasValueSatisfying(b -> assertThat(b.baseOffset()).isEqualTo(0));
        assertThat(store.firstBatchAtOrAfter(partition, 100))
                .hasValueSatisfying(b -> assertThat(b.baseOffset()).isEqualTo(0));
        assertThat(store.firstBatchAtOrAfter(partition, 150))
                .hasValueSatisfying(b -> assertThat(b.baseOffset()).isEqualTo(1));
        assertThat(store.firstBatchAtOrAfter(partition, 301)).isEmpty();
        assertThat(store.batchWithMaxTimestamp(partition)).hasValueSatisfying(b -> {
            assertThat(b.baseOffset()).isEqualTo(1);
            assertThat(b.maxTimestamp()).isEqualTo(300);
        });
        TopicPartition empty = new TopicPartition("orders", 1);
        assertThat(store.firstBatchAtOrAfter(empty, 0)).isEmpty();
        assertThat(store.batchWithMaxTimestamp(empty)).isEmpty();
        assertThat(store.firstBatchAtOrAfter(new TopicPartition("missing", 0), 0))
                .isEmpty();
        assertThat(store.batchWithMaxTimestamp(new TopicPartition("missing", 0)))
                .isEmpty();
    }

    @Test
    void readsAndSizesSkipBatchesBelowTheLogStart() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(
                produce.batch(topic, 0, 10, 100), produce.batch(topic, 0, 10, 300), produce.batch(topic, 0, 10, 200));
        TopicPartition partition = new TopicPartition("orders", 0);
        assertThat(store.partitionSizes("orders")).containsExactly(Map.entry(0, 300L), Map.entry(1, 0L));

        store.deleteRecords(partition, 15);

        assertThat(baseOffsets(store.batches(partition, 0, 10))).containsExactly(10L, 20L);
        assertThat(store.partitionSizes("orders")).containsEntry(0, 200L);

        store.deleteRecords(partition, 20);

        assertThat(baseOffsets(store.batches(partition, 0, 10))).containsExactly(20L);
        assertThat(baseOffsets(store.batches(partition, 12, 10))).containsExactly(20L);
        assertThat(store.firstBatchAtOrAfter(partition, 0))
                .hasValueSatisfying(b -> assertThat(b.baseOffset()).isEqualTo(20));
        assertThat(store.batchWithMaxTimestamp(partition))
                .hasValueSatisfying(b -> assertThat(b.maxTimestamp()).isEqualTo(200));
        assertThat(store.partitionSizes("orders")).containsExactly(Map.entry(0, 100L), Map.entry(1, 0L));
        assertThatThrownBy(() -> store.partitionSizes("missing")).isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void producersListTheIdempotentProducersOfAPartitionById() {
        Topic topic = store.createTopic(new NewTopic("orders", 3, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 2, 0, 3), produce.batch(topic, 0, 1));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 2, 3, 4));
        produce.commit(produce.idempotent(topic, 0, 7, 0, 0, 1), produce.idempotent(topic, 1, 9, 1, 0, 1));

        assertThat(store.producers(new TopicPartition("orders", 0)))
                .containsExactly(
                        new ActiveProducer(7, (short) 0, 0, ProduceFixture.DEFAULT_TIMESTAMP),
                        new ActiveProducer(PRODUCER, (short) 2, 6, ProduceFixture.DEFAULT_TIMESTAMP));
        assertThat(store.producers(new TopicPartition("orders", 1)))
                .containsExactly(new ActiveProducer(9, (short) 1, 0, ProduceFixture.DEFAULT_TIMESTAMP));
        assertThat(store.producers(new TopicPartition("orders", 2))).isEmpty();
        assertThatThrownBy(() -> store.producers(new TopicPartition("orders", 3)))
                .isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.producers(new TopicPartition("missing", 0)))
                .isInstanceOf(UnknownTopicException.class);
    }

    private TopicPartition tp(int partition) {
        return new TopicPartition(topic.name(), partition);
    }
}
