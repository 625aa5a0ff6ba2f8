package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.ObjectDeletion;
import io.floe.core.metadata.ObjectLifecycle;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.metadata.StoredObject;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ObjectLifecycle} (DESIGN §5): compaction's inputs and compare-and-swap
 * rewrites, the sweep of unreferenced objects, the deletion schedule, storage stats and the reference
 * audit. Extend it next to each implementation; every method of the role must be called by some test
 * here (see {@link RoleContract}; {@code referenceMismatches} is called after every test).
 */
public abstract class ObjectLifecycleContract extends RoleContract {

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
        return ObjectLifecycle.class;
    }

    @Test
    void smallObjectsAreTheCommittedOnesBelowTheSizeAndBatchesInListTheirRowsByObjectAndPosition() {
        ObjectKey twoBatches = produce.registerUpload();
        produce.commit(twoBatches, produce.batch(topic, 0, 5), produce.batch(topic, 1, 5));
        ObjectKey oneBatch = produce.registerUpload();
        produce.commit(oneBatch, produce.batch(topic, 0, 5));
        produce.registerUpload(); // registered, never committed: no input
        Instant registered = Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP);
        Instant after = registered.plusMillis(1);

        assertThat(store.smallObjects(Long.MAX_VALUE, after, 10))
                .extracting(StoredObject::key, StoredObject::sizeBytes, StoredObject::refCount)
                .containsExactly(
                        tuple(twoBatches, 2L * ProduceFixture.BATCH_BYTES, 2),
                        tuple(oneBatch, (long) ProduceFixture.BATCH_BYTES, 1));
        assertThat(store.smallObjects(2L * ProduceFixture.BATCH_BYTES, after, 10))
                .extracting(StoredObject::key)
                .as("only objects below the size")
                .containsExactly(oneBatch);
        assertThat(store.smallObjects(Long.MAX_VALUE, after, 1))
                .extracting(StoredObject::key)
                .containsExactly(twoBatches);
        assertThat(store.smallObjects(Long.MAX_VALUE, registered, 10))
                .as("registered before, strictly")
                .isEmpty();

        List<BatchCoordinate> rows = store.batchesIn(List.of(oneBatch, twoBatches));
        assertThat(rows).extracting(BatchCoordinate::object).containsExactly(twoBatches, twoBatches, oneBatch);
        assertThat(rows.get(0).range().position())
                .isLessThan(rows.get(1).range().position());
        assertThat(store.batchesIn(List.of(new ObjectKey("segments/00/unknown.seg"))))
                .isEmpty();
    }

    @Test
    void aRewriteMovesBatchesAndSchedulesInputsThatLostTheirLastBatch() {
        ObjectKey first = committed(produce.batch(topic, 0, 5), produce.batch(topic, 1, 5));
        ObjectKey second = committed(produce.batch(topic, 0, 5));
        List<BatchCoordinate> partition0 = store.batches(tp(0), 0, 100);
        ObjectKey output = produce.registerUpload();

        RewriteOutcome outcome = store.rewrite(rewriteInto(output, partition0), NOW.plusSeconds(60));

        assertThat(outcome).isEqualTo(new RewriteOutcome.Rewritten(List.of(second)));
        List<BatchCoordinate> moved = store.batches(tp(0), 0, 100);
        assertThat(moved).extracting(BatchCoordinate::object).containsOnly(output);
        assertThat(moved).extracting(BatchCoordinate::baseOffset).containsExactly(0L, 5L);
        assertThat(moved).extracting(b -> b.range().position()).containsExactly(0L, 100L);
        assertThat(store.batches(tp(1), 0, 100))
                .extracting(BatchCoordinate::object)
                .containsExactly(first);
        assertThat(store.dueDeletions(NOW.plusSeconds(59), 10)).isEmpty();
        assertThat(store.dueDeletions(NOW.plusSeconds(60), 10))
                .extracting(ObjectDeletion::key)
                .containsExactly(second);
        assertThat(store.unknownObjects(List.of(first, second, output))).isEmpty();
    }

    @Test
    void aRewriteAppliesNothingWhenARowChangedSinceThePlanReadIt() {
        committed(produce.batch(topic, 0, 5));
        committed(produce.batch(topic, 0, 5));
        List<BatchCoordinate> plan = store.batches(tp(0), 0, 100);
        store.truncateLog(tp(0), 5, NOW);

        ObjectKey output = produce.registerUpload();
        RewriteOutcome outcome = store.rewrite(rewriteInto(output, plan), NOW);

        assertThat(outcome).isInstanceOf(RewriteOutcome.Rejected.class);
        assertThat(store.batches(tp(0), 0, 100))
                .extracting(BatchCoordinate::object)
                .doesNotContain(output);
        assertThat(store.batches(tp(0), 0, 100)).containsExactly(plan.get(1));
    }

    @Test
    void aRewriteNeedsItsOutputRegistered() {
        committed(produce.batch(topic, 0, 5));
        List<BatchCoordinate> plan = store.batches(tp(0), 0, 100);

        RewriteOutcome outcome =
                store.rewrite(rewriteInto(new ObjectKey("segments/00/never-registered.seg"), plan), NOW);

        assertThat(outcome).isInstanceOf(RewriteOutcome.Rejected.class);
        assertThat(store.batches(tp(0), 0, 100)).isEqualTo(plan);
    }

    @Test
    void twoRewritesOfTheSameRowsApplyOnce() {
        committed(produce.batch(topic, 0, 5));
        committed(produce.batch(topic, 0, 5));
        List<BatchCoordinate> plan = store.batches(tp(0), 0, 100);
        ObjectKey winner = produce.registerUpload();
        ObjectKey loser = produce.registerUpload();

        assertThat(store.rewrite(rewriteInto(winner, plan), NOW)).isInstanceOf(RewriteOutcome.Rewritten.class);
        assertThat(store.rewrite(rewriteInto(loser, plan), NOW)).isInstanceOf(RewriteOutcome.Rejected.class);

        assertThat(store.batches(tp(0), 0, 100))
                .extracting(BatchCoordinate::object)
                .containsOnly(winner);
    }

    @Test
    void aRewriteMayShrinkBatchesAndRemoveOthersLeavingOffsetGaps() {
        ObjectKey first = committed(produce.batch(topic, 0, 5), produce.batch(topic, 0, 5));
        ObjectKey second = committed(produce.batch(topic, 0, 5), produce.batch(topic, 1, 3));
        ObjectKey third = committed(produce.batch(topic, 0, 5));
        List<BatchCoordinate> rows = store.batches(tp(0), 0, 100);
        ObjectKey output = produce.registerUpload();
        long earlier = ProduceFixture.DEFAULT_TIMESTAMP - 1;
        ObjectRewrite rewrite = new ObjectRewrite(
                output,
                40,
                List.of(new ObjectRewrite.Move(rows.get(0), new ByteRange(0, 40), earlier)),
                List.of(rows.get(1), rows.get(2)));

        RewriteOutcome outcome = store.rewrite(rewrite, NOW.plusSeconds(60));

        assertThat(outcome)
                .as("the second object still holds partition 1's batch")
                .isEqualTo(new RewriteOutcome.Rewritten(List.of(first)));
        List<BatchCoordinate> after = store.batches(tp(0), 0, 100);
        assertThat(after)
                .containsExactly(new BatchCoordinate(tp(0), 0, 4, output, new ByteRange(0, 40), earlier), rows.get(3));
        assertThat(store.batches(tp(0), 7, 100))
                .as("a read from inside the gap starts at the next batch")
                .containsExactly(rows.get(3));
        assertThat(store.offsets(tp(0))).as("markers never change").isEqualTo(new LogOffsets(0, 20));
        assertThat(store.firstBatchAtOrAfter(tp(0), ProduceFixture.DEFAULT_TIMESTAMP))
                .hasValue(rows.get(3));
        assertThat(store.partitionSizes(topic.name())).containsEntry(0, 40L + ProduceFixture.BATCH_BYTES);
        assertThat(store.dueDeletions(NOW.plusSeconds(60), 10))
                .extracting(ObjectDeletion::key)
                .containsExactly(first);
        assertThat(store.unknownObjects(List.of(second, third, output))).isEmpty();
    }

    @Test
    void aRewriteWithoutAnOutputOnlyRemovesBatches() {
        ObjectKey only = committed(produce.batch(topic, 0, 5));
        committed(produce.batch(topic, 0, 5));
        List<BatchCoordinate> rows = store.batches(tp(0), 0, 100);

        RewriteOutcome outcome = store.rewrite(ObjectRewrite.removing(List.of(rows.get(0))), NOW);

        assertThat(outcome).isEqualTo(new RewriteOutcome.Rewritten(List.of(only)));
        assertThat(store.batches(tp(0), 0, 100)).containsExactly(rows.get(1));
        assertThat(store.offsets(tp(0))).isEqualTo(new LogOffsets(0, 10));
        assertThat(store.dueDeletions(NOW, 10)).extracting(ObjectDeletion::key).containsExactly(only);
    }

    @Test
    void aRewriteRemovingARowThatMovedSinceThePlanAppliesNothing() {
        committed(produce.batch(topic, 0, 5));
        committed(produce.batch(topic, 0, 5));
        List<BatchCoordinate> plan = store.batches(tp(0), 0, 100);
        ObjectKey compacted = produce.registerUpload();
        assertThat(store.rewrite(rewriteInto(compacted, plan.subList(1, 2)), NOW))
                .isInstanceOf(RewriteOutcome.Rewritten.class);
        List<BatchCoordinate> moved = store.batches(tp(0), 0, 100);

        ObjectKey output = produce.registerUpload();
        ObjectRewrite stale = new ObjectRewrite(
                output,
                50,
                List.of(new ObjectRewrite.Move(plan.get(0), new ByteRange(0, 50), 1L)),
                List.of(plan.get(1)));

        assertThat(store.rewrite(stale, NOW)).isInstanceOf(RewriteOutcome.Rejected.class);
        assertThat(store.batches(tp(0), 0, 100)).isEqualTo(moved);
        assertThat(moved)
                .extracting(BatchCoordinate::object)
                .containsExactly(plan.get(0).object(), compacted);
    }

    @Test
    void theSweepExpiresOldRegistrationsSoTheirCommitIsRejected() {
        ObjectKey old = produce.registerUpload();
        ObjectKey young = new ObjectKey("segments/00/young.seg");
        store.registerUpload(young, ProduceFixture.AGENT_ID, NOW);

        int scheduled = store.scheduleUnreferenced(NOW.minusSeconds(600), NOW, NOW.plusSeconds(60));

        assertThat(scheduled).isEqualTo(1);
        assertThat(produce.commit(old, produce.batch(topic, 0, 1))).isInstanceOf(CommitOutcome.Rejected.class);
        assertThat(store.dueDeletions(NOW, 10)).singleElement().satisfies(deletion -> {
            assertThat(deletion.key()).isEqualTo(old);
            assertThat(deletion.reason()).isEqualTo(ObjectDeletion.Reason.ORPHAN);
        });
        assertThat(produce.commit(young, produce.batch(topic, 0, 1))).isInstanceOf(CommitOutcome.Committed.class);
    }

    @Test
    void theSweepSchedulesObjectsOfADeletedTopicAfterTheDelay() {
        ObjectKey object = committed(produce.batch(topic, 0, 2));
        store.deleteTopic(topic.name());

        store.scheduleUnreferenced(NOW.minusSeconds(600), NOW, NOW.plusSeconds(60));

        assertThat(store.dueDeletions(NOW, 10)).isEmpty();
        assertThat(store.dueDeletions(NOW.plusSeconds(60), 10)).singleElement().satisfies(deletion -> {
            assertThat(deletion.key()).isEqualTo(object);
            assertThat(deletion.reason()).isEqualTo(ObjectDeletion.Reason.UNREFERENCED);
        });
    }

    @Test
    void forgottenDeletionsAreUnknownAndStatsCountWhatIsLeft() {
        ObjectKey kept = committed(produce.batch(topic, 0, 2));
        ObjectKey dropped = committed(produce.batch(topic, 1, 2));
        produce.registerUpload();
        store.truncateLog(tp(1), 2, NOW);

        assertThat(store.storageStats().pendingDeletions()).isEqualTo(1);
        store.forgetDeletions(List.of(dropped));

        assertThat(store.unknownObjects(List.of(kept, dropped))).containsExactly(dropped);
        assertThat(store.storageStats().committedObjects()).isEqualTo(1);
        assertThat(store.storageStats().committedBytes()).isEqualTo(ProduceFixture.BATCH_BYTES);
        assertThat(store.storageStats().registeredObjects()).isEqualTo(1);
        assertThat(store.storageStats().pendingDeletions()).isZero();
    }

    private TopicPartition tp(int partition) {
        return new TopicPartition(topic.name(), partition);
    }
}
