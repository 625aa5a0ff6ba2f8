package io.floe.agent.group;

import static io.floe.agent.group.CoordinatorFixture.GROUP;
import static io.floe.agent.group.CoordinatorFixture.SESSION_TIMEOUT_MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.group.consumer.Assignment;
import io.floe.agent.group.consumer.TopicMetadata;
import io.floe.agent.transaction.MarkerListener;
import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.group.CommittedOffset;
import io.floe.core.group.GroupMembership;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group's coordinator moves (its agent killed, or a single agent restarted) while its members and a
 * transactional copier go on, each member behaving as the classic Java consumer does with the answers
 * it gets. A move must cost the members a rebalance at most: no transaction aborted, and no wait for
 * the earlier members' sessions when they all came back.
 */
class CoordinatorMoveTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    /** How often a member retries a join its coordinator answered COORDINATOR_LOAD_IN_PROGRESS. */
    private static final long RETRY_BACKOFF_MS = 100;

    @TempDir
    Path dir;

    private MetadataStore store;
    private final List<CoordinatorFixture> agents = new ArrayList<>();

    @BeforeEach
    void openStore() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
    }

    @AfterEach
    void close() {
        agents.forEach(CoordinatorFixture::close);
        store.close();
    }

    @Test
    void aCopiersTransactionalCommitIsTakenByTheNextCoordinatorAfterItsCoordinatorWasKilled() {
        CoordinatorFixture killed = agent("agent-a");
        String member = killed.stableGroup(1).get(0);
        CoordinatorFixture next = agent("agent-b");
        TransactionCoordinator transactions = transactionsOf(next);
        ProducerEpoch producer =
                done(transactions.initProducer("copier-0", 60_000, null)).producer();

        // The killed agent never renews its lease; the next agent's clock passes its end.
        catchUp(next, killed, GroupLeases.TTL.toMillis() + 1);
        TransactionalCommitResult committed = next.coordinator.commitTransactionalOffsets(
                GROUP,
                member,
                null,
                1,
                lease -> transactions.commitPendingOffsets(
                        "copier-0", producer, lease, Map.of(ORDERS_0, new CommittedOffset(42, -1, "", 0))));

        assertThat(committed.error())
                .as("kafka-clients aborts the transaction on GROUP_ID_NOT_FOUND, ILLEGAL_GENERATION and"
                        + " UNKNOWN_MEMBER_ID; it retries NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS")
                .isEqualTo(GroupError.NONE);
        assertThat(committed.outcome()).isInstanceOf(TransactionOutcome.Done.class);
        done(transactions.endTransaction("copier-0", producer, true, false));
        assertThat(store.committedOffsets(GROUP))
                .extractingByKey(ORDERS_0)
                .extracting(CommittedOffset::offset)
                .isEqualTo(42L);
    }

    @Test
    void afterARestartEveryMemberRejoinsAndTheGenerationFormsWithoutWaitingForTheirSessions() {
        CoordinatorFixture before = agent("agent-a");
        List<String> members = before.stableGroup(3);
        before.coordinator.close();
        CoordinatorFixture after = agent("agent-a2");
        catchUp(after, before, 1);

        Map<String, CompletableFuture<JoinResponse>> joins = rejoinAll(after, members);
        long waitedMs = advanceUntilJoined(after, joins, SESSION_TIMEOUT_MS);

        assertThat(waitedMs)
                .as("virtual ms until the members' joins were answered")
                .isLessThan(SESSION_TIMEOUT_MS / 2);
        assertThat(after.meters
                        .counter("floe.group.coordinator.terms", "earlier.members", "recorded")
                        .count())
                .isEqualTo(1);
        assertThat(joins.values())
                .allSatisfy(join -> assertThat(join.join().error()).isEqualTo(GroupError.NONE));
        assertThat(joins.values().stream().map(join -> join.join().generationId()))
                .hasSize(3)
                .containsOnly(joins.values().iterator().next().join().generationId());
    }

    @Test
    void aMemberThatLeftJustBeforeItsCoordinatorStoppedIsNotWaitedFor() {
        CoordinatorFixture before = agent("agent-a");
        List<String> members = before.stableGroup(3);
        LeaveResponse left = before.coordinator
                .leave(new LeaveRequest(GROUP, List.of(new LeaveRequest.Leaving(members.get(2), null, "closing"))))
                .join();
        assertThat(left.error()).isEqualTo(GroupError.NONE);
        before.coordinator.close(); // before any renewal recorded the leave
        CoordinatorFixture after = agent("agent-a2");
        catchUp(after, before, 1);

        Map<String, CompletableFuture<JoinResponse>> joins = rejoinAll(after, members.subList(0, 2));
        long waitedMs = advanceUntilJoined(after, joins, 3 * SESSION_TIMEOUT_MS);

        assertThat(waitedMs)
                .as("virtual ms until the members that stayed were answered")
                .isLessThan(SESSION_TIMEOUT_MS / 2);
        assertThat(joins.values())
                .allSatisfy(join -> assertThat(join.join().error()).isEqualTo(GroupError.NONE));
    }

    @Test
    void aMemberThatDoesNotComeBackHoldsTheGenerationUntilItsSessionRanOut() {
        CoordinatorFixture before = agent("agent-a");
        List<String> members = before.stableGroup(3);
        before.coordinator.close();
        CoordinatorFixture after = agent("agent-a2");
        catchUp(after, before, 1);

        Map<String, CompletableFuture<JoinResponse>> joins = rejoinAll(after, members.subList(0, 2));
        long waitedMs = advanceUntilJoined(after, joins, 3 * SESSION_TIMEOUT_MS);

        assertThat(waitedMs).isGreaterThanOrEqualTo(SESSION_TIMEOUT_MS - 1_000L);
        assertThat(joins.values())
                .allSatisfy(join -> assertThat(join.join().error()).isEqualTo(GroupError.NONE));
        assertThat(joins.values().iterator().next().join().members())
                .as("the leader's view of the new generation")
                .hasSizeLessThanOrEqualTo(2);
    }

    @Test
    void withoutARecordOfTheEarlierMembersATransactionalCommitIsRetriedWhileTheyMayStillCome() {
        // An agent of an earlier version records no members with its lease.
        MetadataStore unrecorded = new ForwardingMetadataStore(store) {
            @Override
            public boolean recordMembers(CoordinatorLease lease, GroupMembership members) {
                return true;
            }
        };
        CoordinatorFixture earlier = new CoordinatorFixture(unrecorded, GroupCoordinatorConfig.defaults(), "agent-a");
        agents.add(earlier);
        String member = earlier.stableGroup(1).get(0);
        CoordinatorFixture next = agent("agent-b");
        TransactionCoordinator transactions = transactionsOf(next);
        ProducerEpoch producer =
                done(transactions.initProducer("copier-0", 60_000, null)).producer();
        catchUp(next, earlier, GroupLeases.TTL.toMillis() + 1);

        GroupError whileWaiting = txnOffsetCommit(next, transactions, producer, member, 42);
        next.timers.advance(SESSION_TIMEOUT_MS);
        GroupError after = txnOffsetCommit(next, transactions, producer, member, 42);

        assertThat(whileWaiting).isEqualTo(GroupError.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(next.meters
                        .counter("floe.group.coordinator.terms", "earlier.members", "waited")
                        .count())
                .isEqualTo(1);
        assertThat(after)
                .as("the member is unknown here: it must rejoin, and its transaction aborts")
                .isEqualTo(GroupError.GROUP_ID_NOT_FOUND);
        assertThat(store.fetchOffsets(GROUP).pending()).isEmpty();
    }

    @Test
    void consumerProtocolMembersOfTheEarlierTermAreWaitedForUntilEachRejoined() {
        ConsumerFixture.Catalog topics = new ConsumerFixture.Catalog();
        topics.put(new TopicMetadata(ConsumerFixture.ORDERS_ID, "orders", 6));
        CoordinatorFixture before = agent("agent-a");
        ConsumerHeartbeatResult first = before.coordinator.consumerHeartbeat(consumerJoin("member-a"), topics);
        ConsumerHeartbeatResult second = before.coordinator.consumerHeartbeat(consumerJoin("member-b"), topics);
        assertThat(first.memberEpoch()).isPositive();
        assertThat(second.memberEpoch()).isPositive();
        before.coordinator.close();
        CoordinatorFixture after = agent("agent-a2");
        catchUp(after, before, 1);

        ConsumerHeartbeatResult unknown =
                after.coordinator.consumerHeartbeat(consumerHeartbeat("member-a", first.memberEpoch()), topics);
        ConsumerHeartbeatResult firstBack = after.coordinator.consumerHeartbeat(consumerJoin("member-a"), topics);
        ConsumerHeartbeatResult secondBack = after.coordinator.consumerHeartbeat(consumerJoin("member-b"), topics);
        ConsumerHeartbeatResult firstAgain = after.coordinator.consumerHeartbeat(consumerJoin("member-a"), topics);

        assertThat(unknown.error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(firstBack.error())
                .as("member-b may still own partitions")
                .isEqualTo(GroupError.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(secondBack.error())
                .as("both are back, no wait for their sessions")
                .isEqualTo(GroupError.NONE);
        assertThat(firstAgain.error()).isEqualTo(GroupError.NONE);
    }

    @Test
    void consumerProtocolMembersStillAwaitedWhenTheNextCoordinatorDiesAreAwaitedByTheOneAfter() {
        ConsumerFixture.Catalog topics = new ConsumerFixture.Catalog();
        topics.put(new TopicMetadata(ConsumerFixture.ORDERS_ID, "orders", 6));
        CoordinatorFixture first = agent("agent-a");
        ConsumerHeartbeatResult joined = first.coordinator.consumerHeartbeat(consumerJoin("member-a"), topics);
        first.coordinator.consumerHeartbeat(consumerJoin("member-b"), topics);
        first.coordinator.close();
        CoordinatorFixture second = agent("agent-b");
        catchUp(second, first, 1);
        assertThat(second.coordinator
                        .consumerHeartbeat(consumerHeartbeat("member-a", joined.memberEpoch()), topics)
                        .error())
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        // A renewal records what the second agent knows; then it is killed before either member came back.
        second.timers.advance(GroupLeases.RENEW_INTERVAL.toMillis());
        CoordinatorFixture third = agent("agent-c");
        catchUp(third, second, GroupLeases.TTL.toMillis() + 1);

        ConsumerHeartbeatResult back = third.coordinator.consumerHeartbeat(consumerJoin("member-a"), topics);

        assertThat(back.error())
                .as("member-b may still own partitions")
                .isEqualTo(GroupError.COORDINATOR_LOAD_IN_PROGRESS);
    }

    private static ConsumerHeartbeat consumerJoin(String memberId) {
        return ConsumerFixture.joinRequest(memberId, null, List.of("orders"), null, null);
    }

    private static ConsumerHeartbeat consumerHeartbeat(String memberId, int epoch) {
        return new ConsumerHeartbeat(
                ConsumerFixture.GROUP,
                memberId,
                epoch,
                null,
                null,
                -1,
                null,
                null,
                null,
                Assignment.EMPTY,
                "client",
                "/127.0.0.1",
                true);
    }

    private static GroupError txnOffsetCommit(
            CoordinatorFixture agent,
            TransactionCoordinator transactions,
            ProducerEpoch producer,
            String memberId,
            long offset) {
        TransactionalCommitResult result = agent.coordinator.commitTransactionalOffsets(
                GROUP,
                memberId,
                null,
                1,
                lease -> transactions.commitPendingOffsets(
                        "copier-0", producer, lease, Map.of(ORDERS_0, new CommittedOffset(offset, -1, "", 0))));
        return result.error();
    }

    /**
     * Each member's next heartbeat at the new coordinator, and what the Java consumer does with its
     * answer: REBALANCE_IN_PROGRESS rejoins with its member id, UNKNOWN_MEMBER_ID starts over without
     * one (the member-id round trip). The joins pending, by the member's first id.
     */
    private static Map<String, CompletableFuture<JoinResponse>> rejoinAll(
            CoordinatorFixture agent, List<String> members) {
        Map<String, CompletableFuture<JoinResponse>> joins = new LinkedHashMap<>();
        for (String member : members) {
            GroupError heartbeat = agent.heartbeat(member, 1);
            assertThat(heartbeat).isIn(GroupError.REBALANCE_IN_PROGRESS, GroupError.UNKNOWN_MEMBER_ID);
            joins.put(member, heartbeat == GroupError.REBALANCE_IN_PROGRESS ? agent.join(member) : agent.join(""));
        }
        return joins;
    }

    /**
     * Moves time in steps of the retry backoff, answering each join as the Java consumer would (a
     * member-id round trip, a retry after COORDINATOR_LOAD_IN_PROGRESS), until every join got its
     * generation or {@code limitMs} passed; returns the time it took.
     */
    private static long advanceUntilJoined(
            CoordinatorFixture agent, Map<String, CompletableFuture<JoinResponse>> joins, long limitMs) {
        Map<String, String> ids = new HashMap<>();
        long waitedMs = 0;
        while (waitedMs <= limitMs) {
            boolean all = true;
            for (Map.Entry<String, CompletableFuture<JoinResponse>> join : joins.entrySet()) {
                if (!join.getValue().isDone()) {
                    all = false;
                    continue;
                }
                JoinResponse response = join.getValue().join();
                if (response.error() == GroupError.MEMBER_ID_REQUIRED) {
                    ids.put(join.getKey(), response.memberId());
                    join.setValue(agent.join(response.memberId()));
                    all = false;
                } else if (response.error() == GroupError.COORDINATOR_LOAD_IN_PROGRESS) {
                    join.setValue(agent.join(ids.getOrDefault(join.getKey(), response.memberId())));
                    all = false;
                }
            }
            if (all) {
                return waitedMs;
            }
            agent.timers.advance(RETRY_BACKOFF_MS);
            waitedMs += RETRY_BACKOFF_MS;
        }
        return waitedMs;
    }

    private CoordinatorFixture agent(String owner) {
        CoordinatorFixture agent = new CoordinatorFixture(store, GroupCoordinatorConfig.defaults(), owner);
        agents.add(agent);
        return agent;
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
}
