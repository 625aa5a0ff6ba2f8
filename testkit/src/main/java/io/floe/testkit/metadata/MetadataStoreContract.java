package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ActiveProducer;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.InvalidPartitionsException;
import io.floe.core.metadata.LogAppends;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.core.topic.UnknownTopicException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of the roles {@link TopicMetadata}, {@link LogAppends}, {@link LogReads} and
 * {@link ConsumerOffsets}, run against every implementation: extend it next to the implementation and
 * return a fresh, empty store from {@link #createStore()}. Every method of those roles must be called by
 * some test here (see {@link RoleContract}).
 */
public abstract class MetadataStoreContract extends RoleContract {

    private static final long TIMEOUT_SECONDS = 60;
    private static final long PRODUCER = 4242;
    private static final Instant LEASE_NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Duration LEASE_TTL = Duration.ofSeconds(6);
    private static final Duration LEASE_SESSION = Duration.ofSeconds(10);
    private static final String FENCED_GROUP = "order-readers";
    private static final TopicPartition FENCED_PARTITION = new TopicPartition("orders", 0);

    private MetadataStore unrecorded;
    private MetadataStore store;
    private ProduceFixture produce;

    /** A new store holding no topics; the suite closes it after each test. */
    protected abstract MetadataStore createStore();

    /** The store of the running test, for implementation-specific tests in subclasses. */
    protected final MetadataStore store() {
        return store;
    }

    @Override
    protected List<Class<?>> roles() {
        return List.of(TopicMetadata.class, LogAppends.class, LogReads.class, ConsumerOffsets.class);
    }

    @BeforeEach
    final void openStore() {
        unrecorded = createStore();
        store = recorded(unrecorded);
        produce = new ProduceFixture(store);
    }

    /** Whatever a test did, every object's reference count is its number of batch rows. */
    @AfterEach
    final void closeStore() {
        if (unrecorded != null) {
            try {
                assertThat(unrecorded.referenceMismatches()).as("objects whose count is not their number of rows")
                        .isEmpty();
            } finally {
                unrecorded.close();
            }
        }
    }

    // ----- topics

    @Test
    void createTopicGivesAFreshIdAndEmptyPartitions() {
        Topic topic = store.createTopic(new NewTopic("orders", 3, Map.of("retention.ms", "1000")));

        assertThat(topic.name()).isEqualTo("orders");
        assertThat(topic.partitionCount()).isEqualTo(3);
        assertThat(topic.configs()).containsExactly(Map.entry("retention.ms", "1000"));
        assertThat(store.topic("orders")).contains(topic);
        for (int partition = 0; partition < 3; partition++) {
            assertThat(store.offsets(new TopicPartition("orders", partition))).isEqualTo(LogOffsets.EMPTY);
        }
        assertThat(store.createTopic(new NewTopic("payments", 1, Map.of())).id()).isNotEqualTo(topic.id());
    }

    @Test
    void createTopicRefusesAnExistingName() {
        Topic first = store.createTopic(new NewTopic("orders", 1, Map.of()));

        assertThatThrownBy(() -> store.createTopic(new NewTopic("orders", 2, Map.of())))
                .isInstanceOf(TopicExistsException.class)
                .hasMessageContaining("orders");
        assertThat(store.topic("orders")).contains(first);
    }

    @Test
    void topicsAreListedByName() {
        store.createTopic(new NewTopic("b", 1, Map.of()));
        store.createTopic(new NewTopic("a", 2, Map.of("cleanup.policy", "compact")));
        store.createTopic(new NewTopic("c", 1, Map.of()));

        assertThat(store.topics()).extracting(Topic::name).containsExactly("a", "b", "c");
        assertThat(store.topics().get(0).configs()).containsExactly(Map.entry("cleanup.policy", "compact"));
        assertThat(store.topic("missing")).isEmpty();
    }

    @Test
    void deleteTopicRemovesItsLogAndFreesTheName() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of("retention.ms", "1")));
        produce.commit(produce.batch(topic, 0, 5), produce.batch(topic, 1, 5));
        TopicPartition partition = new TopicPartition("orders", 0);

        store.deleteTopic("orders");

        assertThat(store.topic("orders")).isEmpty();
        assertThat(store.topics()).isEmpty();
        assertThatThrownBy(() -> store.offsets(partition)).isInstanceOf(UnknownTopicException.class);
        assertThat(store.batches(partition, 0, 10)).isEmpty();
        Topic again = store.createTopic(new NewTopic("orders", 1, Map.of()));
        assertThat(again.id()).isNotEqualTo(topic.id());
        assertThat(again.configs()).isEmpty();
        assertThat(store.offsets(partition)).isEqualTo(LogOffsets.EMPTY);
        assertThat(store.batches(partition, 0, 10)).isEmpty();
    }

    @Test
    void topicOperationsOnAMissingTopicThrowUnknownTopic() {
        assertThatThrownBy(() -> store.deleteTopic("missing")).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.createPartitions("missing", 3)).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.setTopicConfigs("missing", Map.of())).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.offsets(new TopicPartition("missing", 0)))
                .isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void offsetsOfAPartitionOutOfRangeThrowUnknownTopic() {
        store.createTopic(new NewTopic("orders", 2, Map.of()));

        assertThatThrownBy(() -> store.offsets(new TopicPartition("orders", 2))).isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void createPartitionsAddsEmptyPartitionsAndKeepsTheRest() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of("retention.ms", "1000")));
        produce.commit(produce.batch(topic, 1, 4));

        Topic grown = store.createPartitions("orders", 4);

        assertThat(grown).isEqualTo(new Topic("orders", topic.id(), 4, topic.configs()));
        assertThat(store.topic("orders")).contains(grown);
        assertThat(store.offsets(new TopicPartition("orders", 1))).isEqualTo(new LogOffsets(0, 4));
        assertThat(store.offsets(new TopicPartition("orders", 3))).isEqualTo(LogOffsets.EMPTY);
        assertThat(produce.commit(produce.batch(grown, 3, 2))).containsExactly(new AppendResult.Appended(0, 0));
    }

    @Test
    void createPartitionsRefusesToShrinkOrStay() {
        store.createTopic(new NewTopic("orders", 3, Map.of()));

        assertThatThrownBy(() -> store.createPartitions("orders", 2))
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessage("Topic currently has 3 partitions, which is higher than the requested 2.");
        assertThatThrownBy(() -> store.createPartitions("orders", 3)).isInstanceOf(InvalidPartitionsException.class);
        assertThat(store.topic("orders").orElseThrow().partitionCount()).isEqualTo(3);
    }

    @Test
    void setTopicConfigsReplacesTheOverrides() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of("retention.ms", "1000", "segment.ms", "5")));

        Topic updated = store.setTopicConfigs("orders", Map.of("retention.ms", "2000", "cleanup.policy", "compact"));

        assertThat(updated).isEqualTo(new Topic("orders", topic.id(), 1,
                Map.of("retention.ms", "2000", "cleanup.policy", "compact")));
        assertThat(store.topic("orders")).contains(updated);
        assertThat(store.setTopicConfigs("orders", Map.of()).configs()).isEmpty();
        assertThat(store.topic("orders").orElseThrow().configs()).isEmpty();
    }

    // ----- commit

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
    void batchesOfSeveralPartitionsAreReadAsEachAlone() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        ObjectKey object = produce.registerUpload();
        produce.commit(object, produce.batch(topic, 0, 3), produce.batch(topic, 1, 2), produce.batch(topic, 0, 4),
                produce.batch(topic, 1, 5));
        TopicPartition p0 = new TopicPartition("orders", 0);
        TopicPartition p1 = new TopicPartition("orders", 1);

        List<List<BatchCoordinate>> answers = store.batches(List.of(new BatchesQuery(p1, 2, 10),
                new BatchesQuery(p0, 0, 1), new BatchesQuery(new TopicPartition("ghost", 0), 0, 10),
                new BatchesQuery(p0, 3, 0)));

        assertThat(answers).containsExactly(store.batches(p1, 2, 10), store.batches(p0, 0, 1), List.of(), List.of());
        assertThat(answers.get(0)).extracting(BatchCoordinate::baseOffset).containsExactly(2L);
        assertThat(answers.get(1)).extracting(BatchCoordinate::baseOffset).containsExactly(0L);
        assertThat(store.batches(List.of())).isEmpty();
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

        CommitOutcome outcome = produce.commit(new ObjectKey("segments/00/never-registered.seg"), produce.batch(topic, 0, 1));

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

        CommitOutcome repeated = produce.commit(object, plain, first, retryOfFirst, gap, lost, produce.batch(topic, 0, 1));

        assertThat(repeated).isInstanceOf(CommitOutcome.Committed.class);
        List<AppendResult> results = ((CommitOutcome.Committed) repeated).results();
        assertThat(results.subList(0, 3)).containsExactly(new AppendResult.Duplicate(0, 0),
                new AppendResult.Duplicate(0, 0), new AppendResult.Duplicate(0, 0));
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

        List<AppendResult> results = produce.commit(produce.batch(ghost, 0, 1), produce.batch(staleId, 0, 1),
                produce.batch(wider, 4, 1), produce.batch(topic, 1, 3));

        assertThat(results.subList(0, 3)).allSatisfy(result -> assertFailed(result, AppendError.UNKNOWN_TOPIC_OR_PARTITION));
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

    // ----- idempotent producers

    @Test
    void retriedBatchesWithinAndAcrossCommitsGetTheirOriginalOffsets() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        BatchAppend first = produce.idempotent(topic, 0, PRODUCER, 0, 0, 3);
        BatchAppend second = produce.idempotent(topic, 0, PRODUCER, 0, 3, 2);

        assertThat(produce.commit(first, second, produce.idempotent(topic, 0, PRODUCER, 0, 0, 3)))
                .containsExactly(appended(0), appended(3), new AppendResult.Duplicate(0, 0));
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 3, 2), produce.idempotent(topic, 0, PRODUCER, 0, 5, 1)))
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
        assertThat(store.offsets(new TopicPartition("orders", 0)).highWatermark()).isEqualTo(8);
    }

    @Test
    void aSequenceGapIsOutOfOrder() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 5));

        AppendResult gap = produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 7, 1)).get(0);

        assertFailed(gap, AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(((AppendResult.Failed) gap).message()).contains("5").contains("7");
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 5, 1))).containsExactly(appended(5));
    }

    @Test
    void aStaleEpochIsFenced() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 3, 0, 1));

        assertFailed(produce.commit(produce.idempotent(topic, 0, PRODUCER, 2, 1, 1)).get(0), AppendError.PRODUCER_FENCED);
        assertFailed(produce.commit(produce.idempotent(topic, 0, PRODUCER, 2, 0, 1)).get(0), AppendError.PRODUCER_FENCED);
        assertThat(store.offsets(new TopicPartition("orders", 0)).highWatermark()).isEqualTo(1);
    }

    @Test
    void aNewEpochMustStartAtSequenceZero() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 10));

        assertFailed(produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 10, 1)).get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 0, 2), produce.idempotent(topic, 0, PRODUCER, 1, 2, 1)))
                .containsExactly(appended(10), appended(12));
        assertFailed(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 10)).get(0), AppendError.PRODUCER_FENCED);
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 0, 2)))
                .containsExactly(new AppendResult.Duplicate(10, 0));
    }

    @Test
    void aProducerUnknownOnThePartitionMustStartAtSequenceZero() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 100));

        // Batch B (42..) overtook batch A (0..41), whose flush failed: B must wait for A, not be stored first.
        assertFailed(produce.commit(produce.idempotent(topic, 1, PRODUCER, 0, 42, 1)).get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertFailed(produce.commit(produce.idempotent(topic, 0, 7, 5, 17, 2)).get(0), AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(produce.commit(produce.idempotent(topic, 1, PRODUCER, 0, 0, 42), produce.idempotent(topic, 1, PRODUCER, 0, 42, 1)))
                .containsExactly(appended(0), appended(42));
        assertThat(store.offsets(new TopicPartition("orders", 0)).highWatermark()).isEqualTo(100);
    }

    /**
     * Issue 16, defect 1: a new producer pipelines A (0..9) and B (10..19); A's flush fails, B's commits.
     * B must not be stored first, or A's retry lies "behind" it and is answered as a duplicate, which
     * the Java producer takes for success although A was never stored.
     */
    @Test
    void aRetryOfABatchThatWasNeverStoredIsNotADuplicate() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));

        assertFailed(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 10, 10)).get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 10))).containsExactly(appended(0));
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 10, 10))).containsExactly(appended(10));
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
        assertFailed(produce.commit(produce.idempotent(topic, 0, PRODUCER, 1, 65, 10)).get(0),
                AppendError.OUT_OF_ORDER_SEQUENCE);
        assertThat(store.offsets(new TopicPartition("orders", 0)).highWatermark()).isEqualTo(80);
    }

    @Test
    void sequencesWrapAfterIntegerMax() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        int nearMax = Integer.MAX_VALUE - 1;
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, nearMax));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, nearMax, 2));

        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 0, 1))).containsExactly(appended(nearMax + 2L));
        assertThat(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, nearMax, 2)))
                .containsExactly(new AppendResult.Duplicate(nearMax, 0));
        assertFailed(produce.commit(produce.idempotent(topic, 0, PRODUCER, 0, 5, 1)).get(0), AppendError.OUT_OF_ORDER_SEQUENCE);
    }

    @Test
    void batchesWithoutAProducerIdAreNeverDuplicates() {
        Topic topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        BatchAppend batch = produce.batch(topic, 0, 2);

        assertThat(produce.commit(batch, batch)).containsExactly(appended(0), appended(2));
    }

    // ----- reads

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
    void timestampLookupsFindTheFirstAndTheLargest() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(produce.batch(topic, 0, 1, 100), produce.batch(topic, 0, 1, 300), produce.batch(topic, 0, 1, 200),
                produce.batch(topic, 0, 1, 300), produce.batch(topic, 0, 1, 50));
        TopicPartition partition = new TopicPartition("orders", 0);

        assertThat(store.firstBatchAtOrAfter(partition, 0)).hasValueSatisfying(b -> assertThat(b.baseOffset()).isEqualTo(0));
        assertThat(store.firstBatchAtOrAfter(partition, 100)).hasValueSatisfying(b -> assertThat(b.baseOffset()).isEqualTo(0));
        assertThat(store.firstBatchAtOrAfter(partition, 150)).hasValueSatisfying(b -> assertThat(b.baseOffset()).isEqualTo(1));
        assertThat(store.firstBatchAtOrAfter(partition, 301)).isEmpty();
        assertThat(store.batchWithMaxTimestamp(partition)).hasValueSatisfying(b -> {
            assertThat(b.baseOffset()).isEqualTo(1);
            assertThat(b.maxTimestamp()).isEqualTo(300);
        });
        TopicPartition empty = new TopicPartition("orders", 1);
        assertThat(store.firstBatchAtOrAfter(empty, 0)).isEmpty();
        assertThat(store.batchWithMaxTimestamp(empty)).isEmpty();
        assertThat(store.firstBatchAtOrAfter(new TopicPartition("missing", 0), 0)).isEmpty();
        assertThat(store.batchWithMaxTimestamp(new TopicPartition("missing", 0))).isEmpty();
    }

    // ----- log administration

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
                .hasMessageContaining("11").hasMessageContaining("10");
        assertThatThrownBy(() -> store.deleteRecords(partition, -1)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(store.offsets(partition)).isEqualTo(new LogOffsets(0, 10));
        assertThatThrownBy(() -> store.deleteRecords(new TopicPartition("orders", 1), 0))
                .isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> store.deleteRecords(new TopicPartition("missing", 0), 0))
                .isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void readsAndSizesSkipBatchesBelowTheLogStart() {
        Topic topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        produce.commit(produce.batch(topic, 0, 10, 100), produce.batch(topic, 0, 10, 300),
                produce.batch(topic, 0, 10, 200));
        TopicPartition partition = new TopicPartition("orders", 0);
        assertThat(store.partitionSizes("orders")).containsExactly(Map.entry(0, 300L), Map.entry(1, 0L));

        store.deleteRecords(partition, 15);

        assertThat(baseOffsets(store.batches(partition, 0, 10))).containsExactly(10L, 20L);
        assertThat(store.partitionSizes("orders")).containsEntry(0, 200L);

        store.deleteRecords(partition, 20);

        assertThat(baseOffsets(store.batches(partition, 0, 10))).containsExactly(20L);
        assertThat(baseOffsets(store.batches(partition, 12, 10))).containsExactly(20L);
        assertThat(store.firstBatchAtOrAfter(partition, 0)).hasValueSatisfying(b -> assertThat(b.baseOffset()).isEqualTo(20));
        assertThat(store.batchWithMaxTimestamp(partition)).hasValueSatisfying(b -> assertThat(b.maxTimestamp()).isEqualTo(200));
        assertThat(store.partitionSizes("orders")).containsExactly(Map.entry(0, 100L), Map.entry(1, 0L));
        assertThatThrownBy(() -> store.partitionSizes("missing")).isInstanceOf(UnknownTopicException.class);
    }

    @Test
    void producersListTheIdempotentProducersOfAPartitionById() {
        Topic topic = store.createTopic(new NewTopic("orders", 3, Map.of()));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 2, 0, 3), produce.batch(topic, 0, 1));
        produce.commit(produce.idempotent(topic, 0, PRODUCER, 2, 3, 4));
        produce.commit(produce.idempotent(topic, 0, 7, 0, 0, 1), produce.idempotent(topic, 1, 9, 1, 0, 1));

        assertThat(store.producers(new TopicPartition("orders", 0))).containsExactly(
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

    // ----- consumer group offsets

    @Test
    void committedOffsetsAreReadBackAndReplacedPerPartition() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        TopicPartition orders1 = new TopicPartition("orders", 1);
        TopicPartition payments0 = new TopicPartition("payments", 0);
        CommittedOffset first = new CommittedOffset(10, 3, "checkpoint \u00e9", 1_000);
        store.commitOffsets("billing", Map.of(orders0, first, orders1, new CommittedOffset(5, -1, "", 1_000)));
        store.commitOffsets("audit", Map.of(orders0, new CommittedOffset(99, 0, "", 1_500)));

        CommittedOffset replaced = new CommittedOffset(20, 4, "", 2_000);
        store.commitOffsets("billing", Map.of(orders1, replaced, payments0, new CommittedOffset(0, -1, "m", 2_000)));

        assertThat(store.committedOffsets("billing")).containsExactly(
                Map.entry(orders0, first), Map.entry(orders1, replaced),
                Map.entry(payments0, new CommittedOffset(0, -1, "m", 2_000)));
        assertThat(store.committedOffsets("audit")).containsExactly(Map.entry(orders0, new CommittedOffset(99, 0, "", 1_500)));
        assertThat(store.committedOffsets("missing")).isEmpty();
        assertThat(store.offsetGroups()).containsExactly("audit", "billing");
    }

    @Test
    void committingNoOffsetsCreatesNoGroup() {
        store.commitOffsets("idle", Map.of());

        assertThat(store.offsetGroups()).isEmpty();
    }

    @Test
    void deleteOffsetsRemovesOnlyTheNamedPartitionsOfTheGroup() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        TopicPartition orders1 = new TopicPartition("orders", 1);
        store.commitOffsets("billing", Map.of(orders0, offsetAt(1, 0), orders1, offsetAt(2, 0)));
        store.commitOffsets("audit", Map.of(orders0, offsetAt(3, 0)));

        assertThat(store.deleteOffsets("billing", List.of(orders0, new TopicPartition("orders", 7)))).isEqualTo(1);

        assertThat(store.committedOffsets("billing")).containsOnlyKeys(orders1);
        assertThat(store.committedOffsets("audit")).containsOnlyKeys(orders0);
        assertThat(store.deleteOffsets("billing", List.of())).isZero();
    }

    @Test
    void deleteGroupOffsetsForgetsTheGroup() {
        store.commitOffsets("billing", Map.of(new TopicPartition("orders", 0), offsetAt(1, 0),
                new TopicPartition("orders", 1), offsetAt(1, 0)));
        store.commitOffsets("audit", Map.of(new TopicPartition("orders", 0), offsetAt(1, 0)));

        assertThat(store.deleteGroupOffsets("billing")).isEqualTo(2);

        assertThat(store.committedOffsets("billing")).isEmpty();
        assertThat(store.offsetGroups()).containsExactly("audit");
        assertThat(store.deleteGroupOffsets("billing")).isZero();
    }

    @Test
    void deleteTopicOffsetsClearsTheTopicInEveryGroup() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        TopicPartition payments0 = new TopicPartition("payments", 0);
        store.commitOffsets("billing", Map.of(orders0, offsetAt(1, 0), payments0, offsetAt(1, 0)));
        store.commitOffsets("audit", Map.of(orders0, offsetAt(1, 0)));

        assertThat(store.deleteTopicOffsets("orders")).isEqualTo(2);

        assertThat(store.committedOffsets("billing")).containsOnlyKeys(payments0);
        assertThat(store.offsetGroups()).containsExactly("billing");
    }

    @Test
    void expireOffsetsDeletesOnlyCommitsOlderThanTheCutoff() {
        TopicPartition old = new TopicPartition("orders", 0);
        TopicPartition recent = new TopicPartition("orders", 1);
        store.commitOffsets("billing", Map.of(old, offsetAt(1, 1_000), recent, offsetAt(2, 5_000)));
        store.commitOffsets("audit", Map.of(old, offsetAt(1, 1_000)));

        assertThat(store.expireOffsets("billing", Instant.ofEpochMilli(5_000))).isEqualTo(1);

        assertThat(store.committedOffsets("billing")).containsOnlyKeys(recent);
        assertThat(store.committedOffsets("audit")).containsOnlyKeys(old);
    }

    // ----- producer ids and concurrency

    @Test
    void anOffsetCommitAtAStaleCoordinatorEpochIsRejectedAndStoresNothing() {
        CoordinatorLease stale = store.acquireCoordinator(FENCED_GROUP, "agent-a", LEASE_NOW, LEASE_TTL, LEASE_SESSION).orElseThrow();
        assertThat(store.commitOffsets(stale, Map.of(FENCED_PARTITION, fencedOffset(100)))).isTrue();
        CoordinatorLease current = store.acquireCoordinator(FENCED_GROUP, "agent-b", stale.expiresAt().plusMillis(1), LEASE_TTL,
                LEASE_SESSION).orElseThrow();
        assertThat(store.commitOffsets(current, Map.of(FENCED_PARTITION, fencedOffset(120)))).isTrue();

        boolean committed = store.commitOffsets(stale, Map.of(FENCED_PARTITION, fencedOffset(90)));

        assertThat(committed).isFalse();
        assertThat(store.committedOffsets(FENCED_GROUP)).containsExactly(Map.entry(FENCED_PARTITION, fencedOffset(120)));
    }

    @Test
    void anOffsetCommitFromAnotherOwnerOrWithoutAnyLeaseIsRejected() {
        CoordinatorLease held = store.acquireCoordinator(FENCED_GROUP, "agent-a", LEASE_NOW, LEASE_TTL, LEASE_SESSION).orElseThrow();
        CoordinatorLease impostor = new CoordinatorLease(FENCED_GROUP, "agent-b", held.epoch(), held.expiresAt(),
                Instant.EPOCH);
        CoordinatorLease unknownGroup = new CoordinatorLease("other-group", "agent-a", 1, held.expiresAt(),
                Instant.EPOCH);

        assertThat(store.commitOffsets(impostor, Map.of(FENCED_PARTITION, fencedOffset(5)))).isFalse();
        assertThat(store.commitOffsets(unknownGroup, Map.of(FENCED_PARTITION, fencedOffset(5)))).isFalse();
        assertThat(store.committedOffsets(FENCED_GROUP)).isEmpty();
        assertThat(store.committedOffsets("other-group")).isEmpty();
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

        assertThat(ids).hasSize(threads * perThread).allSatisfy(id -> assertThat(id).isNotNegative());
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
                    results.addAll(produce.commit(produce.batch(topic, 0, records), produce.batch(topic, 1, records),
                            produce.batch(topic, 2, records), produce.batch(topic, i % 3, records)));
                }
                return results;
            });
        }

        List<List<AppendResult>> results = runConcurrently(tasks);

        assertThat(results).allSatisfy(r -> assertThat(r).allSatisfy(a -> assertThat(a).isInstanceOf(AppendResult.Appended.class)));
        for (int partition = 0; partition < 3; partition++) {
            TopicPartition tp = new TopicPartition("orders", partition);
            List<BatchCoordinate> log = store.batches(tp, 0, 10_000);
            long next = 0;
            for (BatchCoordinate batch : log) {
                assertThat(batch.baseOffset()).as("batch after offset %d of %s", next, tp).isEqualTo(next);
                next = batch.nextOffset();
            }
            assertThat(store.offsets(tp).highWatermark()).isEqualTo(next);
        }
        long batchCount = (long) threads * commitsPerThread * 4;
        assertThat(results.stream().mapToLong(List::size).sum()).isEqualTo(batchCount);
    }

    // ----- helpers

    private static CommittedOffset fencedOffset(long offset) {
        return new CommittedOffset(offset, CommittedOffset.NO_LEADER_EPOCH, "", LEASE_NOW.toEpochMilli());
    }

    private static CommittedOffset offsetAt(long offset, long commitTimestampMs) {
        return new CommittedOffset(offset, CommittedOffset.NO_LEADER_EPOCH, "", commitTimestampMs);
    }

    private static AppendResult appended(long baseOffset) {
        return new AppendResult.Appended(baseOffset, 0);
    }

    private static Tuple offsets(long base, long last) {
        return tuple(base, last);
    }

    private static List<Long> baseOffsets(List<BatchCoordinate> batches) {
        return batches.stream().map(BatchCoordinate::baseOffset).toList();
    }

    private static void assertFailed(AppendResult result, AppendError error) {
        assertThat(result).isInstanceOfSatisfying(AppendResult.Failed.class,
                failed -> assertThat(failed.error()).as(failed.message()).isEqualTo(error));
    }

    /** Starts all tasks together (a barrier, not a sleep) and returns their results in task order. */
    private static <T> List<T> runConcurrently(List<Callable<T>> tasks) throws Exception {
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
