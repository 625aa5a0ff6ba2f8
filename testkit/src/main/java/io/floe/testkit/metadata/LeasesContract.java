package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.group.GroupMembership;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.Leases;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
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
