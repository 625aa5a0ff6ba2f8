package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.LogAppends;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link LogAppends}: uploads are registered, commits assign dense offsets once per
 * object, idempotent producers' retries and gaps are recognized, producer ids are unique. Extend it next
 * to each implementation; every method of the role must be called by some test here (see
 * {@link RoleContract}).
 */
public abstract class LogAppendsContract extends RoleContract {

    @Override
    protected final Class<?> role() {
        return LogAppends.class;
    }

    @Test
    void commitAssignsDenseOffsetsAcrossCommitsAndPartitions() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));

        assertThat(produce.commit(produce.batch(topic, 0, 3), produce.batch(topic, 1, 2), produce.batch(topic, 0, 5)))
                .containsExactly(appended(0), appended(0), appended(3));
        assertThat(produce.commit(produce.batch(topic, 0, 1), produce.batch(topic, 1, 4)))
                .containsExactly(appended(8), appended(2));

        assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 9));
        assertThat(store.offsets(new TopicPartition("orders", 1))).isEqualTo(new LogOffsets(0, 6));
        assertThat(store.batches(new TopicPartition("orders", 0), 0, 10))
                .extracting(BatchCoordinate::baseOffset, BatchCoordinate::lastOffset)
                .containsExactly(offsets(0, 2), offsets(3, 7), offsets(8, 8));
    }

    @Test
    void committedBatchesPointAtTheirObjectAndRange() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        ObjectKey object = produce.registerUpload();
        BatchAppend batch = produce.batch(topic, 0, 7, 1234L);

        assertThat(produce.commit(object, batch)).isEqualTo(new CommitOutcome.Committed(List.of(appended(0))));

        assertThat(store.batches(new TopicPartition("orders", 0), 0, 10))
                .containsExactly(new BatchCoordinate(batch.topicPartition(), 0, 6, object, batch.range(), 1234L));
    }

    @Test
    void registerUploadsRegistersEveryKeyInOneCallForItsCommit() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        ObjectKey first = new ObjectKey("segments/0a/bulk-1.seg");
        ObjectKey second = new ObjectKey("segments/0b/bulk-2.seg");
        Instant at = Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP);
        store.registerUploads(List.of(first, second), "agent-bulk", at);
        store.registerUploads(List.of(), "agent-bulk", at);

        assertThat(produce.commit(second, produce.batch(topic, 0, 3))).isInstanceOf(CommitOutcome.Committed.class);
        assertThat(produce.commit(first, produce.batch(topic, 0, 2))).isInstanceOf(CommitOutcome.Committed.class);
        assertThat(produce.commit(new ObjectKey("segments/0c/bulk-3.seg"), produce.batch(topic, 0, 1)))
                .isInstanceOf(CommitOutcome.Rejected.class);
        assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 5));
    }

    @Test
    void commitOfAnUnregisteredObjectIsRejected() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));

        CommitOutcome outcome =
                produce.commit(new ObjectKey("segments/00/never-registered.seg"), produce.batch(topic, 0, 1));

        assertThat(outcome).isInstanceOf(CommitOutcome.Rejected.class);
        assertThat(((CommitOutcome.Rejected) outcome).reason()).contains("never-registered");
        assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(LogOffsets.EMPTY);
    }

    @Test
    void anObjectIsCommittedAtMostOnce() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        ObjectKey object = produce.registerUpload();
        BatchAppend batch = produce.batch(topic, 0, 2);
        assertThat(produce.commit(object, batch)).isEqualTo(new CommitOutcome.Committed(List.of(appended(0))));

        // The retry of a commit whose outcome was unknown: nothing is appended, the batch keeps its offset.
        assertThat(produce.commit(object, batch))
                .isEqualTo(new CommitOutcome.Committed(List.of(new AppendResult.Duplicate(0, 0))));

        assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 2));
        assertThat(store.batches(new TopicPartition("orders", 0), 0, 10)).hasSize(1);
    }

    @Test
    void aRepeatedCommitAppendsNothingAndAnswersEachBatchAsItStands() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        Topic ghost = new Topic("ghost", UUID.randomUUID(), 1, Map.of());
        ObjectKey object = produce.registerUpload();
        BatchAppend plain = produce.batch(topic, 0, 2);
        BatchAppend first = produce.idempotent(topic, 1, PRODUCER, 0, 0, 3);
        BatchAppend retryOfFirst = produce.idempotent(topic, 1, PRODUCER, 0, 0, 3);
        BatchAppend gap = produce.idempotent(topic, 1, PRODUCER, 0, 7, 1);
        BatchAppend lost = produce.batch(ghost, 0, 1);
        produce.commit(object, plain, first, retryOfFirst, gap, lost);

        CommitOutcome repeated =
                produce.commit(object, plain, first, retryOfFirst, gap, lost, produce.batch(topic, 0, 1));

        assertThat(repeated).isInstanceOf(CommitOutcome.Committed.class);
        List<AppendResult> results = ((CommitOutcome.Committed) repeated).results();
        assertThat(results.subList(0, 3))
                .containsExactly(
                        new AppendResult.Duplicate(0, 0),
                        new AppendResult.Duplicate(0, 0),
                        new AppendResult.Duplicate(0, 0));
        assertFailed(results.get(3), AppendError.OUT_OF_ORDER_SEQUENCE);
        assertFailed(results.get(4), AppendError.UNKNOWN_TOPIC_OR_PARTITION);
        assertFailed(results.get(5), AppendError.NOT_COMMITTED);
        assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 2));
        assertThat(store.offsets(new TopicPartition("orders", 1))).isEqualTo(new LogOffsets(0, 3));
    }

    @Test
    void batchesForMissingTopicsOrPartitionsFailAloneInTheirCommit() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        Topic ghost = new Topic("ghost", UUID.randomUUID(), 1, Map.of());
        Topic staleId = new Topic("orders", UUID.randomUUID(), 2, Map.of());
        Topic wider = new Topic("orders", topic.id(), 5, Map.of());

        List<AppendResult> results = produce.commit(
                produce.batch(ghost, 0, 1),
                produce.batch(staleId, 0, 1),
                produce.batch(wider, 4, 1),
                produce.batch(topic, 1, 3));

        assertThat(results.subList(0, 3))
                .allSatisfy(result -> assertFailed(result, AppendError.UNKNOWN_TOPIC_OR_PARTITION));
        assertThat(results.get(3)).isEqualTo(appended(0));
        assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(LogOffsets.EMPTY);
    }

    @Test
    void batchesForADeletedTopicFailEvenAfterItIsRecreated() {
        Topic old = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.batch(old, 0, 3));
        store.deleteTopic("orders");
        assertFailed(produce.commit(produce.batch(old, 0, 1)).get(0), AppendError.UNKNOWN_TOPIC_OR_PARTITION);

        Topic recreated = store.createTopic(new NewTopic("orders", 1, Map.of()));

        List<AppendResult> results = produce.commit(produce.batch(old, 0, 1), produce.batch(recreated, 0, 2));
        assertFailed(results.get(0), AppendError.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(results.get(1)).isEqualTo(appended(0));
    }

    @Test
    void retriedBatchesWithinAndAcrossCommitsGetTheirOriginalOffsets() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        BatchAppend first = produce.idempotent(topic, 0, PRODUCER, 0, 0, 3);
        BatchAppend second = produce.idempotent(topic, 0, PRODUCER, 0, 3, 2);

        assertThat(produce.commit(first, second, produce.idempotent(topic, 0, PRODUCER, 0, 0, 3)))
                .containsExactly(appended(0), appended(3), new AppendResult.Duplicate(0, 0));
        assertThat(produce.commit(
                        produce.idempotent(topic, 0, PRODUCER, 0, 3, 2),
                        produce.idempotent(topic, 0, PRODUCER, 0, 5, 1)))
                .containsExactly(new AppendResult.Duplicate(3, 0), appended(5));

        assertThat(store.offsets(new TopicPartition("orders", 0))).isEqualTo(new LogOffsets(0, 6));
        assertThat(store.batches(new TopicPartition("orders", 0), 0, 10)).hasSize(3);
    }

    @Test
    void theLastFiveBatchesOfAProducerAreRecognizedAsRetries() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        for (int sequence = 0; sequence < 8; sequence++) {
            produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, sequence, 1));
        }

        for (int sequence = 3; sequence < 8; sequence++) {
            assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, sequence, 1)))
                    .containsExactly(new AppendResult.Duplicate(sequence, 0));
        }
        assertThat(store.offsets(new TopicPartition("orders", 0)).highWatermark())
                .isEqualTo(8);
    }

    @Test
    void aSequenceGapIsOutOfOrder() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 5));

        AppendResult gap =
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 7, 1)).get(0);

        assertFailed(gap, AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(((AppendResult.Failed) gap).message()).contains("5").contains("7");
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 5, 1)))
                .containsExactly(appended(5));
    }

    @Test
    void aStaleEpochIsFenced() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 3, 0, 1));

        assertFailed(
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 2, 1, 1)).get(0), AppendError.PRODUCER_FENCED);
        assertFailed(
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 2, 0, 1)).get(0), AppendError.PRODUCER_FENCED);
        assertThat(store.offsets(new TopicPartition("orders", 0)).highWatermark())
                .isEqualTo(1);
    }

    @Test
    void aNewEpochMustStartAtSequenceZero() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 10));

        assertFailed(
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 10, 1)).get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(produce.commit(
                        produce.idempotent(topic, 0, PRODUCER, 1, 0, 2),
                        produce.idempotent(topic, 0, PRODUCER, 1, 2, 1)))
                .containsExactly(appended(10), appended(12));
        assertFailed(
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 10)).get(0), AppendError.PRODUCER_FENCED);
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 0, 2)))
                .containsExactly(new AppendResult.Duplicate(10, 0));
    }

    @Test
    void aProducerUnknownOnThePartitionMustStartAtSequenceZero() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 100));

        // Batch B (42..) overtook batch A (0..41), whose flush failed: B must wait for A, not be stored first.
        assertFailed(
                produce.commit(produce.idempotent(topic, 1, PRODUCER, 0, 42, 1)).get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertFailed(
                produce.commit(produce.idempotent(topic, 0, 7, 5, 17, 2)).get(0), AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(produce.commit(
                        produce.idempotent(topic, 1, PRODUCER, 0, 0, 42),
                        produce.idempotent(topic, 1, PRODUCER, 0, 42, 1)))
                .containsExactly(appended(0), appended(42));
        assertThat(store.offsets(new TopicPartition("orders", 0)).highWatermark())
                .isEqualTo(100);
    }

    /**
     * Issue 16, defect 1: a new producer pipelines A (0..9) and B (10..19); A's flush fails, B's commits.
     * B must not be stored first, or A's retry lies "behind" it and is answered as a duplicate, which
     * the Java producer takes for success although A was never stored.
     */
    @Test
    void aRetryOfABatchThatWasNeverStoredIsNotADuplicate() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));

        assertFailed(
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 10, 10))
                        .get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 10)))
                .containsExactly(appended(0));
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 10, 10)))
                .containsExactly(appended(10));
    }

    @Test
    void aRetryOlderThanTheRememberedBatchesIsADuplicateOnlyWithinItsEpoch() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 10));
        for (int sequence = 0; sequence < 70; sequence += 10) {
            produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, sequence, 10));
        }

        // Older than the five remembered batches, stored by epoch 1: a duplicate whose offset is unknown.
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 0, 10)))
                .containsExactly(new AppendResult.Duplicate(AppendResult.Duplicate.UNKNOWN_OFFSET, 0));
        // Reaching past what epoch 1 stored: out of order, never a duplicate.
        assertFailed(
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 65, 10))
                        .get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(store.offsets(new TopicPartition("orders", 0)).highWatermark())
                .isEqualTo(80);
    }

    @Test
    void sequencesWrapAfterIntegerMax() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        int nearMax = Integer.MAX_VALUE - 1;
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, nearMax));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, nearMax, 2));

        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 1)))
                .containsExactly(appended(nearMax + 2L));
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, nearMax, 2)))
                .containsExactly(new AppendResult.Duplicate(nearMax, 0));
        assertFailed(
                produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 5, 1)).get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
    }

    @Test
    void batchesWithoutAProducerIdAreNeverDuplicates() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        BatchAppend batch = produce.batch(topic, 0, 2);

        assertThat(produce.commit(batch, batch)).containsExactly(appended(0), appended(2));
    }

    @Test
    void producerIdsAreUniqueAcrossThreads() throws Exception {
        int threads = 4;
        int perThread = 300;
        List<Callable<List<Long>>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            tasks.add(() -> {
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    ids.add(store.allocateProducerId());
                }
                return ids;
            });
        }

        Set<Long> ids = new HashSet<>();
        runConcurrently(tasks).forEach(ids::addAll);

        assertThat(ids)
                .hasSize(threads * perThread)
                .allSatisfy(id -> assertThat(id).isNotNegative());
    }

    @Test
    void concurrentCommitsToTheSamePartitionsGetDenseUniqueOffsets() throws Exception {
        Topic topic = store.createTopic(new NewTopic("orders", 3, Map.of()));
        int threads = 4;
        int commitsPerThread = 25;
        List<Callable<List<AppendResult>>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int records = t + 1;
            tasks.add(() -> {
                List<AppendResult> results = new ArrayList<>();
                for (int i = 0; i < commitsPerThread; i++) {
                    results.addAll(produce.commit(
                            produce.batch(topic, 0, records),
                            produce.batch(topic, 1, records),
                            produce.batch(topic, 2, records),
                            produce.batch(topic, i % 3, records)));
                }
                return results;
            });
        }

        List<List<AppendResult>> results = runConcurrently(tasks);

        assertThat(results)
                .allSatisfy(
                        r -> assertThat(r).allSatisfy(a -> assertThat(a).isInstanceOf(AppendResult.Appended.class)));
        for (int partition = 0; partition < 3; partition++) {
            TopicPartition tp = new TopicPartition("orders", partition);
            List<BatchCoordinate> log = store.batches(tp, 0, 10_000);
            long next = 0;
            for (BatchCoordinate batch : log) {
                assertThat(batch.baseOffset())
                        .as("batch after offset %d of %s", next, tp)
                        .isEqualTo(next);
                next = batch.nextOffset();
            }
            assertThat(store.offsets(tp).highWatermark()).isEqualTo(next);
        }
        long batchCount = (long) threads * commitsPerThread * 4;
        assertThat(results.stream().mapToLong(List::size).sum()).isEqualTo(batchCount);
    }

    private static Tuple offsets(long base, long last) {
        return tuple(base, last);
    }
}
