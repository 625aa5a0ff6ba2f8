package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.group.CommittedOffset;
import io.floe.core.group.GroupMembership;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.Leases;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Leases} (DESIGN §8): jobs' leases and consumer groups' coordinator leases,
 * whose epoch every fenced offset commit checks (in {@link ConsumerOffsetsContract}). Extend it next to
 * each implementation; every method of the role must be called by some test here (see
 * {@link RoleContract}).
 */
public abstract class LeasesContract extends RoleContract {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Duration TTL = Duration.ofSeconds(6);
    private static final Duration JOB_TTL = Duration.ofSeconds(30);
    private static final Duration SESSION = Duration.ofSeconds(10);
    private static final String GROUP = "order-readers";

    @Override
    protected final Class<?> role() {
        return Leases.class;
    }

    @Test
    void aGroupHasOneCoordinatorUntilItsLeaseRunsOut() {
        CoordinatorLease first =
                store.acquireCoordinator(GROUP, "agent-a", NOW, TTL, SESSION).orElseThrow();

        Optional<CoordinatorLease> other = store.acquireCoordinator(GROUP, "agent-b", NOW.plusSeconds(5), TTL, SESSION);
        CoordinatorLease renewed = store.acquireCoordinator(GROUP, "agent-a", NOW.plusSeconds(5), TTL, SESSION)
                .orElseThrow();

        assertThat(first.epoch()).isEqualTo(1);
        assertThat(first.priorMembersUntil()).isEqualTo(Instant.EPOCH);
        assertThat(other).isEmpty();
        assertThat(renewed)
                .isEqualTo(new CoordinatorLease(
                        GROUP, "agent-a", 1, NOW.plusSeconds(5).plus(TTL), Instant.EPOCH));
    }

    @Test
    void aNewCoordinatorWaitsForTheEarlierMembersSessions() {
        CoordinatorLease first =
                store.acquireCoordinator(GROUP, "agent-a", NOW, TTL, SESSION).orElseThrow();
        Instant later = first.expiresAt().plusMillis(1);

        CoordinatorLease taken = store.acquireCoordinator(GROUP, "agent-b", later, TTL, Duration.ofSeconds(30))
                .orElseThrow();

        assertThat(taken.epoch()).isEqualTo(2);
        assertThat(taken.priorMembersUntil()).isEqualTo(first.expiresAt().plus(SESSION));
    }

    /**
     * Two handovers within one session timeout (a rolling restart): the second holder had no members
     * of its own yet, so the wait for the first holder's members must carry over, not start from zero.
     */
    @Test
    void aChainOfHandoversKeepsWaitingForTheFirstHoldersMembers() {
        Duration longSessions = Duration.ofSeconds(45);
        CoordinatorLease first = store.acquireCoordinator(GROUP, "agent-a", NOW, TTL, longSessions)
                .orElseThrow();
        Instant firstMembersUntil = first.expiresAt().plus(longSessions);
        CoordinatorLease second = store.acquireCoordinator(
                        GROUP, "agent-b", first.expiresAt().plusMillis(1), TTL, Duration.ZERO)
                .orElseThrow();
        store.acquireCoordinator(GROUP, "agent-b", first.expiresAt().plusSeconds(1), TTL, Duration.ZERO)
                .orElseThrow();
        store.releaseCoordinator(second, first.expiresAt().plusSeconds(2));

        CoordinatorLease third = store.acquireCoordinator(
                        GROUP, "agent-c", first.expiresAt().plusSeconds(3), TTL, Duration.ZERO)
                .orElseThrow();

        assertThat(second.priorMembersUntil()).isEqualTo(firstMembersUntil);
        assertThat(third.epoch()).isEqualTo(3);
        assertThat(third.priorMembersUntil()).isEqualTo(firstMembersUntil);
    }

    @Test
    void aReleasedCoordinatorLeaseIsFreeAtOnceAndItsMembersSessionsCountFromTheRelease() {
        CoordinatorLease first =
                store.acquireCoordinator(GROUP, "agent-a", NOW, TTL, SESSION).orElseThrow();
        store.releaseCoordinator(first, NOW.plusSeconds(1));

        CoordinatorLease taken = store.acquireCoordinator(GROUP, "agent-b", NOW.plusSeconds(2), TTL, SESSION)
                .orElseThrow();

        assertThat(taken.epoch()).isEqualTo(2);
        assertThat(taken.priorMembersUntil()).isEqualTo(NOW.plusSeconds(1).plus(SESSION));
    }

    @Test
    void theMembersAHolderRecordedPassToTheNextHoldersAndAreNotWaitedOutByTime() {
        CoordinatorLease first =
                store.acquireCoordinator(GROUP, "agent-a", NOW, TTL, SESSION).orElseThrow();
        GroupMembership members = classic(5, "consumer-2", "consumer-1");
        assertThat(store.recordMembers(first, members)).isTrue();
        assertThat(store.recordedMembers(first)).contains(members);

        CoordinatorLease second = store.acquireCoordinator(
                        GROUP, "agent-b", first.expiresAt().plusMillis(1), TTL, SESSION)
                .orElseThrow();
        assertThat(store.recordedMembers(second)).contains(members);
        // The second holder records nothing of its own before its lease runs out.
        CoordinatorLease third = store.acquireCoordinator(
                        GROUP, "agent-c", second.expiresAt().plusMillis(1), TTL, SESSION)
                .orElseThrow();

        assertThat(second.priorMembersUntil()).isEqualTo(Instant.EPOCH);
        assertThat(store.recordedMembers(second)).as("the lease moved on").isEmpty();
        assertThat(third.epoch()).isEqualTo(3);
        assertThat(third.priorMembersUntil()).isEqualTo(Instant.EPOCH);
        assertThat(store.recordedMembers(third)).contains(members);
        assertThat(members.members())
                .extracting(GroupMembership.Member::memberId)
                .containsExactly("consumer-1", "consumer-2");
    }

    @Test
    void withoutARecordTheWaitForUnknownMembersCarriesOnPastALaterRecord() {
        CoordinatorLease first =
                store.acquireCoordinator(GROUP, "agent-a", NOW, TTL, SESSION).orElseThrow();
        Instant unknownMembersUntil = first.expiresAt().plus(SESSION);
        CoordinatorLease second = store.acquireCoordinator(
                        GROUP, "agent-b", first.expiresAt().plusMillis(1), TTL, Duration.ZERO)
                .orElseThrow();
        assertThat(store.recordedMembers(second)).isEmpty();
        GroupMembership consumers = new GroupMembership(
                GroupMembership.Protocol.CONSUMER,
                3,
                "",
                "",
                List.of(new GroupMembership.Member("m-1", "instance-1", "client", "/10.0.0.1", 45_000, 300_000)));
        assertThat(store.recordMembers(second, consumers)).isTrue();

        CoordinatorLease third = store.acquireCoordinator(
                        GROUP, "agent-c", second.expiresAt().plusMillis(1), TTL, Duration.ZERO)
                .orElseThrow();

        assertThat(second.priorMembersUntil()).isEqualTo(unknownMembersUntil);
        assertThat(third.priorMembersUntil()).isEqualTo(unknownMembersUntil);
        assertThat(store.recordedMembers(third)).contains(consumers);
    }

    @Test
    void onlyTheHolderAtItsEpochRecordsMembers() {
        CoordinatorLease first =
                store.acquireCoordinator(GROUP, "agent-a", NOW, TTL, SESSION).orElseThrow();
        assertThat(store.recordMembers(first, classic(1, "consumer-1"))).isTrue();
        CoordinatorLease second = store.acquireCoordinator(
                        GROUP, "agent-b", first.expiresAt().plusMillis(1), TTL, SESSION)
                .orElseThrow();

        assertThat(store.recordMembers(first, classic(2, "consumer-9"))).isFalse();
        assertThat(store.recordedMembers(second)).contains(classic(1, "consumer-1"));
        assertThat(store.recordedMembers(first)).as("no longer its epoch").isEmpty();
        assertThat(store.recordMembers(second, GroupMembership.EMPTY)).isTrue();
        assertThat(store.recordedMembers(second)).contains(GroupMembership.EMPTY);
    }

    /**
     * A group's lease row is forgotten once nobody used it (issue 27), and the group's next coordinator,
     * the same agent included, starts above every epoch the group had: an agent paused holding any
     * earlier epoch (a commit checked against its lease before the pause) must not find the group's
     * re-created row at that epoch and pass the fence with its stale memory.
     */
    @Test
    void aForgottenCoordinatorLeaseTakenAgainStartsAboveEveryEpochAPausedHolderCouldPresent() {
        CoordinatorLease first =
                store.acquireCoordinator(GROUP, "agent-a", NOW, TTL, SESSION).orElseThrow();
        store.releaseCoordinator(first, NOW.plusSeconds(1));
        CoordinatorLease second = store.acquireCoordinator(GROUP, "agent-b", NOW.plusSeconds(2), TTL, SESSION)
                .orElseThrow();
        store.releaseCoordinator(second, NOW.plusSeconds(3));
        CoordinatorLease paused = store.acquireCoordinator(GROUP, "agent-a", NOW.plusSeconds(4), TTL, SESSION)
                .orElseThrow();
        assertThat(store.recordMembers(paused, classic(3, "consumer-1"))).isTrue();
        Instant dayLater = paused.expiresAt().plus(Duration.ofDays(1));

        assertThat(store.expireCoordinators(dayLater, dayLater, 100)).isEqualTo(1);
        CoordinatorLease again = store.acquireCoordinator(GROUP, "agent-a", dayLater, TTL, SESSION)
                .orElseThrow();

        assertThat(again.priorMembersUntil())
                .as("no member of the forgotten lease may be alive")
                .isEqualTo(Instant.EPOCH);
        assertThat(store.recordedMembers(again)).as("forgotten with the lease").isEmpty();
        TopicPartition orders0 = new TopicPartition("orders", 0);
        for (CoordinatorLease stale : List.of(first, paused)) {
            assertThat(store.commitOffsets(stale, Map.of(orders0, new CommittedOffset(7, -1, "", 0))))
                    .as("a commit of agent-a paused at epoch %s", stale.epoch())
                    .isFalse();
            assertThat(store.recordMembers(stale, classic(4, "consumer-9")))
                    .as("members recorded by agent-a paused at epoch %s", stale.epoch())
                    .isFalse();
        }
        assertThat(List.of(first.epoch(), second.epoch(), paused.epoch())).containsExactly(1L, 2L, 3L);
        assertThat(again.epoch())
                .as("the re-created lease's epoch, above every epoch the group had")
                .isGreaterThan(paused.epoch());
        assertThat(store.recordedMembers(again)).isEmpty();
        assertThat(store.expireCoordinators(dayLater, dayLater, 100))
                .as("the group's new lease runs")
                .isZero();

        // Forgotten again: the next lease starts above that one too.
        store.releaseCoordinator(again, dayLater.plusSeconds(1));
        Instant twoDaysLater = dayLater.plus(Duration.ofDays(1));
        assertThat(store.expireCoordinators(twoDaysLater, twoDaysLater, 100)).isEqualTo(1);
        assertThat(store.acquireCoordinator(GROUP, "agent-b", twoDaysLater, TTL, SESSION))
                .hasValueSatisfying(lease -> assertThat(lease.epoch()).isGreaterThan(again.epoch()));
    }

    /**
     * A lease goes only when no agent holds it and no member of the group may still be alive: the
     * holder's longest session, the recorded members' sessions (counted from the lease's end) and an
     * earlier holder's wait have all run out. Oldest first, at most {@code max}.
     */
    @Test
    void onlyLeasesNobodyHoldsAndWhoseMembersCannotBeAliveAreForgotten() {
        Instant end = NOW.plus(TTL);
        CoordinatorLease due =
                store.acquireCoordinator("due", "agent-a", NOW, TTL, SESSION).orElseThrow();
        CoordinatorLease recorded = store.acquireCoordinator("recorded", "agent-a", NOW, TTL, Duration.ZERO)
                .orElseThrow();
        GroupMembership longSessions = new GroupMembership(
                GroupMembership.Protocol.CONSUMER,
                2,
                "",
                "",
                List.of(new GroupMembership.Member("m-1", null, "client", "/10.0.0.1", 45_000, 300_000)));
        assertThat(store.recordMembers(recorded, longSessions)).isTrue();
        store.acquireCoordinator("long-holder", "agent-a", NOW, TTL, Duration.ofSeconds(60));
        CoordinatorLease waiting = store.acquireCoordinator(
                        "waiting", "agent-a", NOW.minusSeconds(4), TTL, Duration.ofSeconds(90))
                .orElseThrow();
        CoordinatorLease successor = store.acquireCoordinator(
                        "waiting", "agent-b", waiting.expiresAt().plusMillis(1), TTL, Duration.ZERO)
                .orElseThrow();
        store.releaseCoordinator(successor, successor.expiresAt().minusSeconds(5));
        store.acquireCoordinator("held", "agent-a", NOW.plusSeconds(40), Duration.ofMinutes(10), SESSION);

        Instant at = end.plusSeconds(30);
        assertThat(successor.priorMembersUntil()).isEqualTo(waiting.expiresAt().plusSeconds(90));
        assertThat(store.expireCoordinators(at, at, 100))
                .as("only the lease whose holder's sessions (10 s) ran out")
                .isEqualTo(1);
        Duration longTtl = Duration.ofMinutes(5);
        assertThat(store.acquireCoordinator("due", "agent-b", at, longTtl, SESSION))
                .hasValueSatisfying(lease -> assertThat(lease.epoch()).isGreaterThan(due.epoch()));
        assertThat(store.acquireCoordinator("recorded", "agent-b", at, longTtl, SESSION))
                .as("kept: its recorded member's 45 s session runs")
                .hasValueSatisfying(lease -> {
                    assertThat(lease.epoch()).isEqualTo(recorded.epoch() + 1);
                    assertThat(store.recordedMembers(lease)).contains(longSessions);
                });

        Instant later = end.plusSeconds(100);
        assertThat(store.expireCoordinators(later, later, 1))
                .as("at most max: the oldest first")
                .isEqualTo(1);
        assertThat(store.acquireCoordinator("waiting", "agent-c", later, longTtl, SESSION))
                .as("the lease that ended first (its earlier holder's 90 s wait is over) went first")
                .hasValueSatisfying(
                        lease -> assertThat(lease.priorMembersUntil()).isEqualTo(Instant.EPOCH));
        assertThat(store.expireCoordinators(later, later, 100))
                .as("the 60 s holder's; not the leases taken again or held")
                .isEqualTo(1);
        assertThat(store.acquireCoordinator("held", "agent-b", later, TTL, SESSION))
                .as("still held")
                .isEmpty();
    }

    /**
     * Job leases of jobs that stopped (a deleted topic's table) are forgotten, and a lease taken again
     * under the name starts above every epoch it had: Tableflow records a table's lease epoch on the
     * table and refuses a lower one.
     */
    @Test
    void aForgottenJobLeaseTakenAgainStartsAboveEveryEpochItHad() {
        JobLease first =
                store.acquireLease("tableflow/orders", "agent-a", NOW, JOB_TTL).orElseThrow();
        JobLease second = store.acquireLease("tableflow/orders", "agent-b", first.expiresAt(), JOB_TTL)
                .orElseThrow();
        store.releaseLease(second);
        JobLease ranOut =
                store.acquireLease("tableflow/audit", "agent-a", NOW, JOB_TTL).orElseThrow();
        store.acquireLease("retention", "agent-a", NOW.plusSeconds(50), JOB_TTL);
        JobLease recent = store.acquireLease("tableflow/late", "agent-a", NOW.plusSeconds(40), JOB_TTL)
                .orElseThrow();

        Instant cutoff = NOW.plusSeconds(60);
        assertThat(store.expireLeases(cutoff, 1))
                .as("at most max: the released one first")
                .isEqualTo(1);
        assertThat(store.expireLeases(cutoff, 100))
                .as("the one that ran out before the cutoff; not the held one nor the one ending after it")
                .isEqualTo(1);
        assertThat(store.expireLeases(cutoff, 100)).isZero();

        JobLease again = store.acquireLease("tableflow/orders", "agent-a", cutoff, JOB_TTL)
                .orElseThrow();
        assertThat(second.epoch()).isEqualTo(2);
        assertThat(again.epoch()).isGreaterThan(second.epoch()).isGreaterThan(ranOut.epoch());
        assertThat(store.acquireLease("tableflow/late", "agent-a", cutoff, JOB_TTL))
                .as("kept, renewed at its epoch")
                .hasValueSatisfying(lease -> assertThat(lease.epoch()).isEqualTo(recent.epoch()));
        assertThat(store.acquireLease("retention", "agent-b", cutoff, JOB_TTL))
                .as("still held")
                .isEmpty();
    }

    private static GroupMembership classic(int generation, String... memberIds) {
        return new GroupMembership(
                GroupMembership.Protocol.CLASSIC,
                generation,
                "consumer",
                "range",
                Arrays.stream(memberIds)
                        .map(id -> new GroupMembership.Member(id, null, "client", "/127.0.0.1", 10_000, 30_000))
                        .toList());
    }

    @Test
    void aLeaseHasOneHolderUntilItExpiresOrIsReleased() {
        Optional<JobLease> first = store.acquireLease("compaction", "agent-a", NOW, JOB_TTL);
        assertThat(first).hasValueSatisfying(lease -> assertThat(lease.epoch()).isEqualTo(1));

        assertThat(store.acquireLease("compaction", "agent-b", NOW.plusSeconds(29), JOB_TTL))
                .isEmpty();
        assertThat(store.acquireLease("retention", "agent-b", NOW, JOB_TTL)).isPresent();
        assertThat(store.acquireLease("compaction", "agent-a", NOW.plusSeconds(10), JOB_TTL))
                .hasValueSatisfying(renewed -> {
                    assertThat(renewed.epoch()).isEqualTo(1);
                    assertThat(renewed.expiresAt()).isEqualTo(NOW.plusSeconds(40));
                });

        Optional<JobLease> takenOver = store.acquireLease("compaction", "agent-b", NOW.plusSeconds(40), JOB_TTL);
        assertThat(takenOver)
                .hasValueSatisfying(lease -> assertThat(lease.epoch()).isEqualTo(2));

        store.releaseLease(first.get()); // stale: epoch 1 no longer holds it
        assertThat(store.acquireLease("compaction", "agent-a", NOW.plusSeconds(41), JOB_TTL))
                .isEmpty();
        store.releaseLease(takenOver.get());
        assertThat(store.acquireLease("compaction", "agent-a", NOW.plusSeconds(41), JOB_TTL))
                .hasValueSatisfying(lease -> assertThat(lease.epoch()).isEqualTo(3));
    }
}
