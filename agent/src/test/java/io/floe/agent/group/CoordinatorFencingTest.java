package io.floe.agent.group;

import static io.floe.agent.group.CoordinatorFixture.GROUP;
import static io.floe.agent.group.CoordinatorFixture.SESSION_TIMEOUT_MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.transaction.MarkerListener;
import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two agents' coordinators on one store, whose views both route the group to themselves (as when two
 * agents shared a node id, or one was paused and resumed): only the holder of the group's coordinator
 * lease forms generations and commits offsets, and a coordinator that lost the lease, however sure
 * its memory is, has its commits refused by the store.
 */
class CoordinatorFencingTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @TempDir
    Path dir;

    private MetadataStore store;
    private CoordinatorFixture first;
    private CoordinatorFixture second;

    @BeforeEach
    void twoAgents() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        first = new CoordinatorFixture(store, GroupCoordinatorConfig.defaults(), "agent-a");
        second = new CoordinatorFixture(store, GroupCoordinatorConfig.defaults(), "agent-b");
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
        store.close();
    }

    @Test
    void anAgentWhoseViewIsWrongAnswersNotCoordinatorToJoinsAndCommits() {
        List<String> members = first.stableGroup(1);

        assertThat(second.join("").join().error()).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(second.coordinator.commitOffsets(commit("", -1, 5)).error()).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(first.coordinator
                        .commitOffsets(commit(members.get(0), 1, 10))
                        .error())
                .isEqualTo(GroupError.NONE);
        assertThat(store.committedOffsets(GROUP))
                .extractingByKey(ORDERS_0)
                .extracting(CommittedOffset::offset)
                .isEqualTo(10L);
    }

    @Test
    void aPausedCoordinatorsCommitIsRefusedByTheStoreAfterAnotherAgentTookTheGroup() {
        String member = first.stableGroup(1).get(0);
        assertThat(first.coordinator.commitOffsets(commit(member, 1, 10)).error())
                .isEqualTo(GroupError.NONE);

        // The first agent is paused (its time stands still); the second's time passes the lease's end. It takes
        // the group over with its recorded member, which never comes: its session runs out there.
        catchUp(second, first, GroupLeases.TTL.toMillis() + 1);
        assertThat(second.join("").join().error()).isEqualTo(GroupError.MEMBER_ID_REQUIRED);
        second.timers.advance(SESSION_TIMEOUT_MS);
        String newMember = second.stableGroup(1).get(0);
        assertThat(second.coordinator
                        .commitOffsets(commit(newMember, second.lastGeneration, 20))
                        .error())
                .isEqualTo(GroupError.NONE);

        // Resumed before its renewal runs, the first agent still trusts its memory; the store does not.
        OffsetCommitResult stale = first.coordinator.commitOffsets(commit(member, 1, 11));

        assertThat(stale.error()).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(store.committedOffsets(GROUP))
                .extractingByKey(ORDERS_0)
                .extracting(CommittedOffset::offset)
                .isEqualTo(20L);
        // It forgot the group: its members are sent to look for the coordinator, and joins are refused.
        assertThat(first.heartbeat(member, 1)).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(first.join("").join().error()).isEqualTo(GroupError.NOT_COORDINATOR);
    }

    @Test
    void aCoordinatorThatLetItsLeaseRunOutForgetsItsGroupOnResuming() {
        String member = first.stableGroup(1).get(0);
        catchUp(second, first, GroupLeases.TTL.toMillis() + 1);
        assertThat(second.join("").join().error()).isEqualTo(GroupError.MEMBER_ID_REQUIRED);

        first.timers.advance(GroupLeases.TTL.toMillis());

        assertThat(first.heartbeat(member, 1)).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(second.heartbeat(member, 1))
                .as("the second agent took the group over with its member, which it tells to rejoin")
                .isEqualTo(GroupError.REBALANCE_IN_PROGRESS);
        assertThat(first.coordinator.commitOffsets(commit(member, 1, 11)).error())
                .isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(store.committedOffsets(GROUP)).isEmpty();
    }

    @Test
    void aLeaseIsRenewedWhileTheGroupLivesAndGivenUpWhenTheAgentStops() {
        String member = first.stableGroup(1).get(0);
        for (int second = 0; second < 3 * GroupLeases.TTL.toSeconds(); second++) {
            first.timers.advance(1000);
            assertThat(first.heartbeat(member, 1)).isEqualTo(GroupError.NONE);
        }
        first.coordinator.close();
        catchUp(second, first, 1);

        assertThat(second.heartbeat(member, 1))
                .as("the released lease is taken at once, with the member recorded under it")
                .isEqualTo(GroupError.REBALANCE_IN_PROGRESS);
        assertThat(second.join(member).join().error()).isEqualTo(GroupError.NONE);
    }

    @Test
    void aZombieMembersTransactionalOffsetsAreRefusedOnceAnotherAgentTookTheGroup() {
        TransactionCoordinator transactions = transactionsOf(first);
        ProducerEpoch producer =
                done(transactions.initProducer("copier-0", 60_000, null)).producer();
        String zombie = first.stableGroup(1).get(0);
        // The first agent is paused; the second takes the group over and forms a generation of its own,
        // whose member reads the group's offsets: nothing committed, nothing pending.
        catchUp(second, first, GroupLeases.TTL.toMillis() + 1);
        assertThat(second.join("").join().error()).isEqualTo(GroupError.MEMBER_ID_REQUIRED);
        second.timers.advance(SESSION_TIMEOUT_MS);
        second.stableGroup(1);
        assertThat(store.fetchOffsets(GROUP).pending()).isEmpty();

        // Resumed before its renewal runs, the first agent still trusts its memory of the zombie.
        GroupError error = txnOffsetCommit(first, transactions, producer, zombie, 1, 10);
        TransactionOutcome ended = transactions.endTransaction("copier-0", producer, true, false);

        assertThat(error).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(first.meters
                        .counter("floe.group.writes.fenced", "write", "transactional.offsets")
                        .count())
                .isEqualTo(1);
        assertThat(ended).isInstanceOf(TransactionOutcome.Refused.class);
        assertThat(store.committedOffsets(GROUP))
                .as("the zombie's offsets, committed after the new generation read the group's")
                .isEmpty();
        assertThat(first.heartbeat(zombie, 1)).isEqualTo(GroupError.NOT_COORDINATOR);
    }

    @Test
    void aStaleCoordinatorsOffsetAndGroupDeletionsAreRefusedByTheStore() {
        assertThat(first.coordinator.commitOffsets(commit("", -1, 5)).error()).isEqualTo(GroupError.NONE);
        // The first agent is paused; the second takes the group over (no members to wait for) and forms a generation.
        catchUp(second, first, GroupLeases.TTL.toMillis() + 1);
        second.stableGroup(1);

        // The first agent, resumed, still trusts its lease, and knows no members of the group.
        OffsetDeleteResult offsetDelete =
                first.coordinator.deleteOffsets(GROUP, List.of(ORDERS_0), metadata -> Set.of());
        GroupError groupDelete = first.coordinator.deleteGroup(GROUP);

        assertThat(offsetDelete.error()).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(groupDelete).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(store.committedOffsets(GROUP))
                .extractingByKey(ORDERS_0)
                .extracting(CommittedOffset::offset)
                .isEqualTo(5L);
    }

    @Test
    void anAgentThatDoesNotCoordinateAGroupDoesNotExpireItsOffsets() {
        GroupCoordinatorConfig config =
                GroupCoordinatorConfig.defaults().withOffsetsRetention(Duration.ofMinutes(1), Duration.ofMinutes(1));
        CoordinatorFixture holder = new CoordinatorFixture(store, config, "agent-c");
        CoordinatorFixture other = new CoordinatorFixture(store, config, "agent-d");
        try {
            String member = holder.stableGroup(1).get(0);
            assertThat(holder.coordinator.commitOffsets(commit(member, 1, 7)).error())
                    .isEqualTo(GroupError.NONE);
            for (int second = 0; second < 2 * 60; second++) {
                holder.timers.advance(1000);
                assertThat(holder.heartbeat(member, 1)).isEqualTo(GroupError.NONE);
            }
            catchUp(other, holder, 0);

            // The other agent's view sends it the group (a view out of date), and it knows no members of it.
            int expired = other.coordinator.expireOffsets();

            assertThat(expired).isZero();
            assertThat(store.committedOffsets(GROUP)).containsKey(ORDERS_0);
            assertThat(holder.coordinator.expireOffsets())
                    .as("the group has a member")
                    .isZero();
        } finally {
            holder.close();
            other.close();
        }
    }

    /** TxnOffsetCommit as the Kafka API makes it: the group's error, or NONE when the transaction took the offsets. */
    private static GroupError txnOffsetCommit(
            CoordinatorFixture agent,
            TransactionCoordinator transactions,
            ProducerEpoch producer,
            String memberId,
            int generation,
            long offset) {
        TransactionalCommitResult result = agent.coordinator.commitTransactionalOffsets(
                GROUP,
                memberId,
                null,
                generation,
                lease -> transactions.commitPendingOffsets(
                        "copier-0", producer, lease, Map.of(ORDERS_0, new CommittedOffset(offset, -1, "", 0))));
        if (result.error() != GroupError.NONE) {
            return result.error();
        }
        assertThat(result.outcome()).isInstanceOf(TransactionOutcome.Done.class);
        return GroupError.NONE;
    }

    private TransactionCoordinator transactionsOf(CoordinatorFixture agent) {
        return new TransactionCoordinator(
                store,
                agent.timers.clock(),
                Duration.ofMinutes(15),
                Duration.ofSeconds(10),
                MarkerListener.of(markers -> {}, () -> {}),
                id -> true,
                new SimpleMeterRegistry());
    }

    private static TransactionOutcome.Done done(TransactionOutcome outcome) {
        assertThat(outcome).isInstanceOf(TransactionOutcome.Done.class);
        return (TransactionOutcome.Done) outcome;
    }

    /** Moves {@code behind}'s time to {@code ahead}'s, plus {@code extraMs}. */
    private static void catchUp(CoordinatorFixture behind, CoordinatorFixture ahead, long extraMs) {
        behind.timers.advance(ahead.timers.nowMs() - behind.timers.nowMs() + extraMs);
    }

    private static OffsetCommitRequest commit(String memberId, int generation, long offset) {
        return new OffsetCommitRequest(
                GROUP, memberId, null, generation, Map.of(ORDERS_0, new OffsetCommitRequest.NewOffset(offset, -1, "")));
    }
}
