package io.floe.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.group.GroupMembership;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.Leases;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A lease loop renewed apart from its rounds: a round longer than the lease keeps it, one longer than
 * its longest time lets it go, and what a renewal found (the lease taken by another agent, or lapsed and
 * taken again under a new epoch) the next turn tells the job. The store is an in-memory {@link Leases}
 * that keeps the role's contract (a lease per job, the epoch growing with every new holder).
 */
class LeaseLoopTest {

    private static final Duration TTL = Duration.ofSeconds(15);
    private static final Duration ROUND_MAX = Duration.ofMinutes(2);
    private static final Instant START = Instant.parse("2026-12-01T00:00:00Z");

    private final MemoryLeases store = new MemoryLeases();
    private final LeaseLoop loop = new LeaseLoop("job", "agent-1", store, TTL, TTL.dividedBy(3));
    private final List<String> told = new ArrayList<>();

    @Test
    void aRoundLongerThanTheLeaseKeepsItWhileItIsRenewedApart() {
        loop.turn(START, true, rounds(now -> {
            for (int i = 1; i <= 12; i++) { // a minute, four TTLs
                assertThat(loop.renew(START.plusSeconds(5L * i), ROUND_MAX)).isTrue();
                assertThat(store.acquireLease("job", "agent-2", START.plusSeconds(5L * i), TTL))
                        .isEmpty();
            }
        }));
        assertThat(told).containsExactly("taken 1 others=false", "run 1");
    }

    @Test
    void aRoundPastItsLongestTimeIsNoLongerRenewedAndTheJobMoves() {
        loop.turn(START, true, rounds(now -> {
            Instant at = START;
            while (at.isBefore(START.plus(ROUND_MAX).plus(TTL))) {
                at = at.plusSeconds(5);
                loop.renew(at, ROUND_MAX);
            }
            assertThat(store.acquireLease("job", "agent-2", at.plusSeconds(5), TTL))
                    .as("the hung round's lease ran out")
                    .isPresent();
        }));
        loop.turn(START.plus(ROUND_MAX).plus(TTL).plusSeconds(10), true, rounds(now -> {}));
        assertThat(told).containsExactly("taken 1 others=false", "run 1", "not held, was held");
    }

    @Test
    void aLeaseARenewalFoundTakenIsToldAtTheNextTurnWithoutAskingTheStore() {
        loop.turn(START, true, rounds(now -> {}));
        Instant later = START.plus(TTL).plusSeconds(1); // paused past the lease
        store.acquireLease("job", "agent-2", later, TTL);

        assertThat(loop.renew(later.plusSeconds(1), ROUND_MAX)).isFalse();
        int asked = store.acquisitions;
        loop.turn(later.plusSeconds(2), false, rounds(now -> {}));
        assertThat(store.acquisitions).as("the store asked").isEqualTo(asked);
        assertThat(told).containsExactly("taken 1 others=false", "run 1", "not held, was held");
        assertThat(loop.lease()).isEmpty();
    }

    @Test
    void aLeaseThatLapsedAndARenewalTookAgainIsToldAsTakenUnderItsNewEpoch() {
        loop.turn(START, true, rounds(now -> {}));
        Instant later = START.plus(TTL).plusSeconds(1); // paused past the lease; nobody took it

        assertThat(loop.renew(later, ROUND_MAX)).isTrue();
        assertThat(loop.lease()).map(JobLease::epoch).contains(2L);
        loop.turn(later.plusSeconds(1), true, rounds(now -> {}));
        assertThat(told).containsExactly("taken 1 others=false", "run 1", "taken 2 others=false", "run 2");
    }

    @Test
    void anotherAgentsTermBetweenTwoOfThisAgentsIsTold() {
        loop.turn(START, true, rounds(now -> {}));
        Instant later = START.plus(TTL).plusSeconds(1);
        store.acquireLease("job", "agent-2", later, TTL);
        loop.renew(later, ROUND_MAX);

        loop.turn(later.plus(TTL).plusSeconds(1), true, rounds(now -> {}));
        assertThat(told).containsExactly("taken 1 others=false", "run 1", "taken 3 others=true", "run 3");
    }

    /** Hooks that record what the loop told, running {@code round} as the round. */
    private LeaseLoop.Rounds rounds(Consumer<Instant> round) {
        return new LeaseLoop.Rounds() {
            @Override
            public void run(JobLease lease, Instant now) {
                told.add("run " + lease.epoch());
                round.accept(now);
            }

            @Override
            public void taken(JobLease lease, boolean othersHeldSince) {
                told.add("taken " + lease.epoch() + " others=" + othersHeldSince);
            }

            @Override
            public void notHeld(boolean wasHeld) {
                told.add(wasHeld ? "not held, was held" : "not held");
            }
        };
    }

    /** Job leases in memory, as the role's contract has them; no coordinator leases. */
    private static final class MemoryLeases implements Leases {
        private final Map<String, JobLease> leases = new HashMap<>();
        int acquisitions;

        @Override
        public synchronized Optional<JobLease> acquireLease(String job, String owner, Instant now, Duration ttl) {
            acquisitions++;
            JobLease held = leases.get(job);
            boolean expired = held != null && !held.expiresAt().isAfter(now);
            JobLease granted;
            if (held == null) {
                granted = new JobLease(job, owner, 1, now.plus(ttl));
            } else if (held.owner().equals(owner) && !expired) {
                granted = new JobLease(job, owner, held.epoch(), now.plus(ttl));
            } else if (expired) {
                granted = new JobLease(job, owner, held.epoch() + 1, now.plus(ttl));
            } else {
                return Optional.empty();
            }
            leases.put(job, granted);
            return Optional.of(granted);
        }

        @Override
        public synchronized void releaseLease(JobLease lease) {
            JobLease held = leases.get(lease.job());
            if (held != null && held.owner().equals(lease.owner()) && held.epoch() == lease.epoch()) {
                leases.put(lease.job(), new JobLease(lease.job(), lease.owner(), lease.epoch(), Instant.EPOCH));
            }
        }

        @Override
        public Optional<CoordinatorLease> acquireCoordinator(
                String groupId, String owner, Instant now, Duration ttl, Duration sessionTimeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void releaseCoordinator(CoordinatorLease lease, Instant now) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean recordMembers(CoordinatorLease lease, GroupMembership members) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<GroupMembership> recordedMembers(CoordinatorLease lease) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int expireCoordinators(Instant endedBefore, Instant now, int max) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int expireLeases(Instant endedBefore, int max) {
            throw new UnsupportedOperationException();
        }
    }
}
