package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ConsumerOffsets}: consumer groups' committed offsets, replaced per partition,
 * deleted and expired, and fenced by the coordinator lease's epoch. Extend it next to each
 * implementation; every method of the role must be called by some test here (see {@link RoleContract}).
 */
public abstract class ConsumerOffsetsContract extends RoleContract {

    private static final Instant LEASE_NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Duration LEASE_TTL = Duration.ofSeconds(6);
    private static final Duration LEASE_SESSION = Duration.ofSeconds(10);
    private static final String FENCED_GROUP = "order-readers";
    private static final TopicPartition FENCED_PARTITION = new TopicPartition("orders", 0);

    @Override
    protected final Class<?> role() {
        return ConsumerOffsets.class;
    }

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

        assertThat(store.committedOffsets("billing"))
                .containsExactly(
                        Map.entry(orders0, first),
                        Map.entry(orders1, replaced),
                        Map.entry(payments0, new CommittedOffset(0, -1, "m", 2_000)));
        assertThat(store.committedOffsets("audit"))
                .containsExactly(Map.entry(orders0, new CommittedOffset(99, 0, "", 1_500)));
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
        CoordinatorLease billing = lease("billing", "agent-a", LEASE_NOW);

        assertThat(store.deleteOffsets(billing, List.of(orders0, new TopicPartition("orders", 7))))
                .hasValue(1);

        assertThat(store.committedOffsets("billing")).containsOnlyKeys(orders1);
        assertThat(store.committedOffsets("audit")).containsOnlyKeys(orders0);
        assertThat(store.deleteOffsets(billing, List.of())).hasValue(0);
    }

    @Test
    void offsetAndGroupDeletionsAtAStaleCoordinatorEpochAreRejectedAndDeleteNothing() {
        store.commitOffsets(FENCED_GROUP, Map.of(FENCED_PARTITION, fencedOffset(100)));
        CoordinatorLease stale = lease(FENCED_GROUP, "agent-a", LEASE_NOW);
        CoordinatorLease current =
                lease(FENCED_GROUP, "agent-b", stale.expiresAt().plusMillis(1));

        assertThat(store.deleteOffsets(stale, List.of(FENCED_PARTITION))).isEmpty();
        assertThat(store.deleteGroupOffsets(stale)).isEmpty();
        assertThat(store.committedOffsets(FENCED_GROUP)).containsOnlyKeys(FENCED_PARTITION);
        assertThat(store.deleteGroupOffsets(current)).hasValue(1);
        assertThat(store.offsetGroups()).isEmpty();
    }

    @Test
    void deleteGroupOffsetsForgetsTheGroup() {
        store.commitOffsets(
                "billing",
                Map.of(
                        new TopicPartition("orders", 0),
                        offsetAt(1, 0),
                        new TopicPartition("orders", 1),
                        offsetAt(1, 0)));
        store.commitOffsets("audit", Map.of(new TopicPartition("orders", 0), offsetAt(1, 0)));
        CoordinatorLease billing = lease("billing", "agent-a", LEASE_NOW);

        assertThat(store.deleteGroupOffsets(billing)).hasValue(2);

        assertThat(store.committedOffsets("billing")).isEmpty();
        assertThat(store.offsetGroups()).containsExactly("audit");
        assertThat(store.deleteGroupOffsets(billing)).hasValue(0);
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

        assertThat(store.expireOffsets("billing", Instant.ofEpochMilli(5_000), "agent-a", LEASE_NOW))
                .isEqualTo(1);

        assertThat(store.committedOffsets("billing")).containsOnlyKeys(recent);
        assertThat(store.committedOffsets("audit")).containsOnlyKeys(old);
    }

    @Test
    void offsetsOfAGroupAnotherAgentCoordinatesOrCoordinatedWithinItsMembersSessionsDoNotExpire() {
        store.commitOffsets(FENCED_GROUP, Map.of(FENCED_PARTITION, offsetAt(1, 1_000)));
        Instant cutoff = Instant.ofEpochMilli(5_000);
        CoordinatorLease held = lease(FENCED_GROUP, "agent-a", LEASE_NOW);

        assertThat(store.expireOffsets(FENCED_GROUP, cutoff, "agent-b", LEASE_NOW))
                .as("agent-a holds the lease")
                .isZero();
        assertThat(store.expireOffsets(
                        FENCED_GROUP,
                        cutoff,
                        "agent-b",
                        held.expiresAt().plus(LEASE_SESSION).minusMillis(1)))
                .as("agent-a's members may still be on their way")
                .isZero();
        assertThat(store.committedOffsets(FENCED_GROUP)).containsOnlyKeys(FENCED_PARTITION);
        assertThat(store.expireOffsets(FENCED_GROUP, cutoff, "agent-a", LEASE_NOW))
                .as("the holder itself")
                .isEqualTo(1);
        store.commitOffsets(FENCED_GROUP, Map.of(FENCED_PARTITION, offsetAt(1, 1_000)));
        assertThat(store.expireOffsets(
                        FENCED_GROUP, cutoff, "agent-b", held.expiresAt().plus(LEASE_SESSION)))
                .isEqualTo(1);
    }

    @Test
    void groupsCommittedBeforeListsOnlyTheGroupsWithAnOffsetOlderThanTheCutoff() {
        TopicPartition old = new TopicPartition("orders", 0);
        TopicPartition recent = new TopicPartition("orders", 1);
        store.commitOffsets("billing", Map.of(old, offsetAt(1, 1_000), recent, offsetAt(2, 5_000)));
        store.commitOffsets("audit", Map.of(old, offsetAt(1, 1_000)));
        store.commitOffsets("fresh", Map.of(old, offsetAt(1, 5_000)));

        assertThat(store.groupsCommittedBefore(Instant.ofEpochMilli(5_000))).containsExactly("audit", "billing");
        assertThat(store.groupsCommittedBefore(Instant.ofEpochMilli(1_000))).isEmpty();

        store.expireOffsets("billing", Instant.ofEpochMilli(5_000), "agent-a", LEASE_NOW);
        assertThat(store.groupsCommittedBefore(Instant.ofEpochMilli(5_000))).containsExactly("audit");
    }

    @Test
    void anOffsetCommitAtAStaleCoordinatorEpochIsRejectedAndStoresNothing() {
        CoordinatorLease stale = store.acquireCoordinator(FENCED_GROUP, "agent-a", LEASE_NOW, LEASE_TTL, LEASE_SESSION)
                .orElseThrow();
        assertThat(store.commitOffsets(stale, Map.of(FENCED_PARTITION, fencedOffset(100))))
                .isTrue();
        CoordinatorLease current = store.acquireCoordinator(
                        FENCED_GROUP, "agent-b", stale.expiresAt().plusMillis(1), LEASE_TTL, LEASE_SESSION)
                .orElseThrow();
        assertThat(store.commitOffsets(current, Map.of(FENCED_PARTITION, fencedOffset(120))))
                .isTrue();

        boolean committed = store.commitOffsets(stale, Map.of(FENCED_PARTITION, fencedOffset(90)));

        assertThat(committed).isFalse();
        assertThat(store.committedOffsets(FENCED_GROUP))
                .containsExactly(Map.entry(FENCED_PARTITION, fencedOffset(120)));
    }

    @Test
    void anOffsetCommitFromAnotherOwnerOrWithoutAnyLeaseIsRejected() {
        CoordinatorLease held = store.acquireCoordinator(FENCED_GROUP, "agent-a", LEASE_NOW, LEASE_TTL, LEASE_SESSION)
                .orElseThrow();
        CoordinatorLease impostor =
                new CoordinatorLease(FENCED_GROUP, "agent-b", held.epoch(), held.expiresAt(), Instant.EPOCH);
        CoordinatorLease unknownGroup =
                new CoordinatorLease("other-group", "agent-a", 1, held.expiresAt(), Instant.EPOCH);

        assertThat(store.commitOffsets(impostor, Map.of(FENCED_PARTITION, fencedOffset(5))))
                .isFalse();
        assertThat(store.commitOffsets(unknownGroup, Map.of(FENCED_PARTITION, fencedOffset(5))))
                .isFalse();
        assertThat(store.committedOffsets(FENCED_GROUP)).isEmpty();
        assertThat(store.committedOffsets("other-group")).isEmpty();
    }

    @Test
    void fetchOffsetsShowsPendingPartitionsUntilTheTransactionEndsAndThenItsOffsets() {
        TopicPartition orders0 = new TopicPartition("orders", 0);
        TopicPartition orders1 = new TopicPartition("orders", 1);
        store.commitOffsets("billing", Map.of(orders0, offsetAt(3, 1_000), orders1, offsetAt(4, 1_000)));
        ProducerEpoch producer =
                done(store.initProducer("copier", 60_000, null, LEASE_NOW)).producer();
        done(store.commitPendingOffsets(
                "copier",
                producer,
                lease("billing", "agent-a", LEASE_NOW),
                Map.of(orders0, fencedOffset(5)),
                LEASE_NOW));
        done(store.commitPendingOffsets(
                "copier", producer, lease("audit", "agent-a", LEASE_NOW), Map.of(orders1, fencedOffset(9)), LEASE_NOW));

        FetchedOffsets open = store.fetchOffsets("billing");
        done(store.endTransaction("copier", producer, true, false, LEASE_NOW));
        FetchedOffsets ended = store.fetchOffsets("billing");

        assertThat(open.committed())
                .containsExactlyInAnyOrderEntriesOf(Map.of(orders0, offsetAt(3, 1_000), orders1, offsetAt(4, 1_000)));
        assertThat(open.pending())
                .as("another group's pending offsets are its own")
                .containsExactly(orders0);
        assertThat(ended.committed())
                .containsExactlyInAnyOrderEntriesOf(Map.of(orders0, fencedOffset(5), orders1, offsetAt(4, 1_000)));
        assertThat(ended.pending()).isEmpty();
        assertThat(store.fetchOffsets("missing")).isEqualTo(new FetchedOffsets(Map.of(), Set.of()));
    }

    /** The coordinator lease of {@code groupId}, taken by {@code owner} at {@code now}. */
    private CoordinatorLease lease(String groupId, String owner, Instant now) {
        return store.acquireCoordinator(groupId, owner, now, LEASE_TTL, LEASE_SESSION)
                .orElseThrow();
    }

    private static TransactionOutcome.Done done(TransactionOutcome outcome) {
        assertThat(outcome).isInstanceOf(TransactionOutcome.Done.class);
        return (TransactionOutcome.Done) outcome;
    }

    private static CommittedOffset fencedOffset(long offset) {
        return new CommittedOffset(offset, CommittedOffset.NO_LEADER_EPOCH, "", LEASE_NOW.toEpochMilli());
    }

    private static CommittedOffset offsetAt(long offset, long commitTimestampMs) {
        return new CommittedOffset(offset, CommittedOffset.NO_LEADER_EPOCH, "", commitTimestampMs);
    }
}
