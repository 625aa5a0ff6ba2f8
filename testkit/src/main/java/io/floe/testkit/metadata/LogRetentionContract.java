package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.LogRetention;
import io.floe.core.metadata.MarkerCleaning;
import io.floe.core.metadata.ObjectDeletion;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link LogRetention}: the log start moves forward only (deleted records, truncation
 * capped by retention holds), idle producers are forgotten, transaction markers go by Kafka's cleaner
 * rules and the emulated active segment moves forward only. Extend it next to each implementation;
 * every method of the role must be called by some test here (see {@link RoleContract}).
 */
public abstract class LogRetentionContract extends RoleContract {

    private static final Instant NOW =
            Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP).plus(Duration.ofDays(1));

    /** A topic of two partitions some tests commit to, made before each test. */
    private Topic topic;

    @BeforeEach
    final void createEventsTopic() {
        topic = store.createTopic(new NewTopic("events", 2, Map.of()));
    }

    @Override
    protected final Class<?> role() {
        return LogRetention.class;
    }

    @Test
    void deleteRecordsMovesTheLogStartForwardOnly() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        for (int i = 0; i < 3; i++) {
            produce.commit(produce.batch(topic, 0, 10));
        }
        TopicPartition partition = new TopicPartition("orders", 0);

        assertThat(store.deleteRecords(partition, 15)).isEqualTo(15);
        assertThat(store.offsets(partition)).isEqualTo(new LogOffsets(15, 30));
        assertThat(store.deleteRecords(partition, 5)).isEqualTo(15);
        assertThat(store.deleteRecords(partition, 15)).isEqualTo(15);
        assertThat(store.offsets(partition)).isEqualTo(new LogOffsets(15, 30));
        assertThat(store.deleteRecords(partition, 30)).isEqualTo(30);
        assertThat(store.offsets(partition)).isEqualTo(new LogOffsets(30, 30));
        assertThat(store.offsets(new TopicPartition("orders", 1))).isEqualTo(LogOffsets.EMPTY);
        assertThat(produce.commit(produce.batch(topic, 0, 1))).containsExactly(new AppendResult.Appended(30, 30));
        assertThat(store.offsets(partition)).isEqualTo(new LogOffsets(30, 31));
    }

    @Test
    void deleteRecordsRefusesOffsetsOutsideTheLogAndUnknownPartitions() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.batch(topic, 0, 10));
        TopicPartition partition = new TopicPartition("orders", 0);

        assertThatThrownBy(() -> store.deleteRecords(partition, 11))
                .isInstanceOf(OffsetOutOfRangeException.class)
                .hasMessageContaining("11")
                .hasMessageContaining("10");
        assertThatThrownBy(() -> store.deleteRecords(partition, -1)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(store.offsets(partition)).isEqualTo(new LogOffsets(0, 10));
        assertThatThrownBy(() -> store.deleteRecords(new TopicPartition("orders", 1), 0))
                .isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.deleteRecords(new TopicPartition("missing", 0), 0))
                .isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void idleProducersAreForgottenAndMustStartAgainAtSequenceZero() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(
                produce.idempotent(topic, 0, PRODUCER, 0, 0, 10),
                produce.idempotent(topic, 1, PRODUCER, 0, 0, 5),
                produce.idempotent(topic, 0, 7, 0, 0, 1));

        assertThat(store.expireProducers(Instant.EPOCH)).isZero();
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 10)))
                .containsExactly(new AppendResult.Duplicate(0, 0));

        assertThat(store.expireProducers(Instant.now().plus(Duration.ofDays(1))))
                .isEqualTo(3);
        assertThat(store.producers(new TopicPartition("orders", 0))).isEmpty();
        assertThat(store.producers(new TopicPartition("orders", 1))).isEmpty();
        assertThat(store.expireProducers(Instant.now().plus(Duration.ofDays(1))))
                .isZero();
        // Its state gone, the producer's next batch is out of order (never a duplicate) until it bumps its epoch.
        assertFailed(
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 10, 1)).get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 0, 1)))
                .containsExactly(appended(11));
    }

    @Test
    void retentionHoldsAreReplacedPerHolderTheLowestWinsAndTheyGoWithTheirTopic() {
        assertThat(store.retentionHolds("events")).isEmpty();
        store.holdRetention("tableflow", "events", Map.of(0, 10L, 1, 20L));
        store.holdRetention("audit", "events", Map.of(0, 5L));
        assertThat(store.retentionHolds("events")).isEqualTo(Map.of(0, 5L, 1, 20L));

        store.holdRetention("audit", "events", Map.of(0, 15L));
        store.holdRetention("tableflow", "events", Map.of(1, 25L));
        assertThat(store.retentionHolds("events")).isEqualTo(Map.of(0, 10L, 1, 25L));

        store.releaseRetention("tableflow", "events");
        assertThat(store.retentionHolds("events")).isEqualTo(Map.of(0, 15L));
        assertThatThrownBy(() -> store.holdRetention("tableflow", "missing", Map.of(0, 1L)))
                .isInstanceOf(UnknownTopicException.class);

        store.deleteTopic("events");
        store.createTopic(new NewTopic("events", 2, Map.of()));
        assertThat(store.retentionHolds("events")).isEmpty();
    }

    @Test
    void truncationMovesTheLogStartForwardOnlyAndReleasesWholeBatchesBelowIt() {
        ObjectKey first = committed(produce.batch(topic, 0, 5));
        ObjectKey second = committed(produce.batch(topic, 0, 5), produce.batch(topic, 1, 3));

        assertThat(store.truncateLog(tp(0), 7, NOW)).isEqualTo(7);
        assertThat(store.offsets(tp(0))).isEqualTo(new LogOffsets(7, 10));
        assertThat(store.batches(tp(0), 0, 100))
                .extracting(BatchCoordinate::baseOffset)
                .containsExactly(5L);
        assertThat(store.dueDeletions(NOW, 10)).extracting(ObjectDeletion::key).containsExactly(first);

        assertThat(store.truncateLog(tp(0), 3, NOW)).as("never backwards").isEqualTo(7);
        assertThat(store.truncateLog(tp(0), 99, NOW))
                .as("never past the high watermark")
                .isEqualTo(10);
        assertThat(store.batches(tp(0), 0, 100)).isEmpty();
        assertThat(store.dueDeletions(NOW, 10))
                .extracting(ObjectDeletion::key)
                .as("the second object still holds partition 1's batch")
                .containsExactly(first);
        assertThat(store.partitionSizes(topic.name()))
                .containsExactly(Map.entry(0, 0L), Map.entry(1, (long) ProduceFixture.BATCH_BYTES));
        assertThat(store.unknownObjects(List.of(second))).isEmpty();
    }

    /**
     * Retention plans from holds it read earlier; a table may write its hold (and read the log start)
     * after that read. The truncation must then still stop at the hold: the store enforces the lowest
     * hold inside the truncation, under the partition's lock, not only the planner.
     */
    @Test
    void aHoldWrittenAfterRetentionPlannedStillCapsTheTruncation() {
        committed(produce.batch(topic, 0, 4));
        committed(produce.batch(topic, 0, 4));
        committed(produce.batch(topic, 0, 4));
        assertThat(store.retentionHolds(topic.name()))
                .as("what retention planned from")
                .isEmpty();
        store.holdRetention("tableflow", topic.name(), Map.of(0, 4L));

        assertThat(store.truncateLog(tp(0), 12, NOW)).isEqualTo(4);
        assertThat(store.offsets(tp(0))).isEqualTo(new LogOffsets(4, 12));
        assertThat(store.batches(tp(0), 0, 100))
                .extracting(BatchCoordinate::baseOffset)
                .containsExactly(4L, 8L);

        store.holdRetention("audit", topic.name(), Map.of(0, 6L));
        assertThat(store.truncateLog(tp(0), 12, NOW)).as("the lowest hold caps").isEqualTo(4);
        store.releaseRetention("tableflow", topic.name());
        assertThat(store.truncateLog(tp(0), 12, NOW)).isEqualTo(6);
        assertThat(store.batches(tp(0), 0, 100))
                .extracting(BatchCoordinate::baseOffset)
                .containsExactly(4L, 8L);
        assertThat(store.deleteRecords(tp(0), 10))
                .as("DeleteRecords ignores holds")
                .isEqualTo(10);
        assertThat(store.truncateLog(tp(0), 12, NOW))
                .as("never backwards, below a hold too")
                .isEqualTo(10);
        assertThat(store.batches(tp(0), 0, 100))
                .extracting(BatchCoordinate::baseOffset)
                .containsExactly(8L);
    }

    /**
     * Kafka's cleaner rules for markers: one goes only once no batch of its producer is left in its
     * transaction, and only after the delete horizon the first call that found it so gave it; abort
     * markers are the index of aborted transactions, so an abort marker removed while its records remain
     * would let a read-committed reader take them.
     */
    @Test
    void markersGoOnlyOnceTheirTransactionsRecordsAreGoneAndTheirHorizonHasPassed() {
        ProducerEpoch producer = ((TransactionOutcome.Done) store.initProducer("txn", 60_000, null, NOW)).producer();
        transaction(producer, 0, true); // batch 0..1, commit marker at 2
        transaction(producer, 2, false); // batch 3..4, abort marker at 5
        committed(produce.batch(topic, 0, 2)); // 6..7
        Instant horizon = NOW.plus(Duration.ofHours(1));

        assertThat(store.cleanMarkers(tp(0), 0, 8, NOW, horizon, 100))
                .as("every transaction still has its records")
                .isEqualTo(new MarkerCleaning(8, 0, Long.MAX_VALUE));

        BatchCoordinate aborted = store.batches(tp(0), 3, 1).get(0);
        assertThat(store.rewrite(ObjectRewrite.removing(List.of(aborted)), NOW))
                .isInstanceOf(RewriteOutcome.Rewritten.class);
        assertThat(store.cleanMarkers(tp(0), 0, 8, NOW, horizon, 100))
                .as("the abort marker's records are gone: it gets its horizon")
                .isEqualTo(new MarkerCleaning(8, 0, horizon.toEpochMilli()));
        assertThat(store.cleanMarkers(tp(0), 0, 8, horizon.minusMillis(1), horizon.plusSeconds(60), 100))
                .as("before its horizon it stays, and keeps the horizon it had")
                .isEqualTo(new MarkerCleaning(8, 0, horizon.toEpochMilli()));
        assertThat(store.abortedTransactions(tp(0), 0, 8)).hasSize(1);

        long rewrites = store.logRewrites();
        assertThat(store.cleanMarkers(tp(0), 0, 8, horizon, horizon.plusSeconds(60), 100))
                .isEqualTo(new MarkerCleaning(8, 1, Long.MAX_VALUE));
        assertThat(store.logRewrites()).isGreaterThan(rewrites);
        assertThat(store.abortedTransactions(tp(0), 0, 8)).isEmpty();
        assertThat(store.entries(List.of(new BatchesQuery(tp(0), 0, 10))).get(0))
                .extracting(LogEntry::baseOffset)
                .containsExactly(0L, 2L, 6L);

        BatchCoordinate committedBatch = store.batches(tp(0), 0, 1).get(0);
        store.rewrite(ObjectRewrite.removing(List.of(committedBatch)), NOW);
        assertThat(store.cleanMarkers(tp(0), 0, 2, NOW, NOW, 100))
                .as("a marker past the section is left alone")
                .isEqualTo(new MarkerCleaning(2, 0, Long.MAX_VALUE));
        assertThat(store.cleanMarkers(tp(0), 0, 8, NOW, NOW, 100))
                .as("stamped, never removed in the same call")
                .isEqualTo(new MarkerCleaning(8, 0, NOW.toEpochMilli()));
        assertThat(store.cleanMarkers(tp(0), 0, 8, NOW, NOW, 100)).isEqualTo(new MarkerCleaning(8, 1, Long.MAX_VALUE));
        assertThat(store.entries(List.of(new BatchesQuery(tp(0), 0, 10))).get(0))
                .extracting(LogEntry::baseOffset)
                .containsExactly(6L);
        assertThat(store.cleanMarkers(new TopicPartition("missing", 0), 0, 8, NOW, NOW, 100)
                        .removed())
                .isZero();
    }

    @Test
    void markersAreCleanedAPageAtATime() {
        ProducerEpoch producer = ((TransactionOutcome.Done) store.initProducer("txn", 60_000, null, NOW)).producer();
        transaction(producer, 0, true); // 0..1, marker 2
        transaction(producer, 2, true); // 3..4, marker 5
        transaction(producer, 4, true); // 6..7, marker 8

        assertThat(store.cleanMarkers(tp(0), 0, 9, NOW, NOW, 2).nextOffset()).isEqualTo(6);
        assertThat(store.cleanMarkers(tp(0), 6, 9, NOW, NOW, 2).nextOffset()).isEqualTo(9);
        assertThat(store.cleanMarkers(tp(0), 3, 9, NOW, NOW, 1).nextOffset()).isEqualTo(6);
    }

    @Test
    void theActiveSegmentMovesForwardOnly() {
        assertThat(store.activeSegment(tp(0))).isZero();
        assertThat(store.rollSegment(tp(0), 5)).isEqualTo(5);
        assertThat(store.rollSegment(tp(0), 3)).as("never back").isEqualTo(5);
        assertThat(store.activeSegment(tp(0))).isEqualTo(5);
        assertThat(store.activeSegment(tp(1))).isZero();
        assertThatThrownBy(() -> store.activeSegment(new TopicPartition("missing", 0)))
                .isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.rollSegment(new TopicPartition("events", 7), 1))
                .isInstanceOf(UnknownTopicException.class);

        store.deleteTopic("events");
        store.createTopic(new NewTopic("events", 1, Map.of()));
        assertThat(store.activeSegment(tp(0)))
                .as("a new topic of the same name starts afresh")
                .isZero();
    }

    /** One transaction of {@code producer} on partition 0: a batch of two records, then its end. */
    private void transaction(ProducerEpoch producer, int sequence, boolean commit) {
        assertThat(store.addPartitions("txn", producer, List.of(tp(0)), NOW))
                .isInstanceOf(TransactionOutcome.Done.class);
        assertThat(produce.commit(
                        produce.transactional(topic, 0, producer, sequence, 2, TransactionalAppend.IN_TRANSACTION)))
                .singleElement()
                .isInstanceOf(AppendResult.Appended.class);
        assertThat(store.endTransaction("txn", producer, commit, false, NOW))
                .isInstanceOf(TransactionOutcome.Done.class);
    }

    private TopicPartition tp(int partition) {
        return new TopicPartition(topic.name(), partition);
    }
}
