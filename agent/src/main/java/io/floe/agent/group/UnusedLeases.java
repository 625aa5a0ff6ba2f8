package io.floe.agent.group;

import io.floe.core.metadata.Leases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forgets the coordinator leases of groups nobody has coordinated for {@link #KEPT} and whose members'
 * sessions have all run out, with the members recorded under them, so that the store keeps a lease
 * per group in use rather than per group ever named (applications that name a group per run, per test or
 * per job). Runs with the offset retention sweep, as Kafka's coordinator removes a group with its
 * expired offsets. The store finds them through an index on the lease's end and deletes at most
 * {@link #PER_ROUND} a round; a lease taken later for such a group starts above every epoch the group
 * had (see {@link Leases#expireCoordinators}), so nothing that held an earlier epoch passes the fence.
 */
final class UnusedLeases {

    /**
     * How long after its lease ended a group's lease row is kept. Nothing needs it once its members'
     * sessions (at most {@code group.max.session.timeout.ms}, 30 min) have run out; a day keeps the rows
     * of groups used daily from being forgotten and taken again each time, and covers any clock skew
     * between the agent that held a lease and the one that forgets it.
     */
    static final Duration KEPT = Duration.ofDays(1);
    /** Leases forgotten per store transaction. */
    static final int PER_CALL = 1_000;
    /** Leases forgotten at most per sweep; the rest stay due for the next. */
    static final int PER_ROUND = 10_000;

    private static final Logger LOGGER = LoggerFactory.getLogger(UnusedLeases.class);

    private final Leases store;
    private final Clock clock;
    private final GroupMetrics metrics;

    UnusedLeases(Leases store, Clock clock, GroupMetrics metrics) {
        this.store = store;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** Forgets what is due now, up to {@link #PER_ROUND}; returns how many leases. */
    int expire() {
        Instant now = clock.instant();
        Instant endedBefore = now.minus(KEPT);
        int forgotten = 0;
        int last;
        do {
            last = store.expireCoordinators(endedBefore, now, PER_CALL);
            forgotten += last;
        } while (last == PER_CALL && forgotten < PER_ROUND);
        metrics.leasesExpired(forgotten);
        if (forgotten > 0) {
            LOGGER.info(
                    "Forgot the coordinator leases of unused groups leases={} endedBefore={} roundFull={}",
                    forgotten,
                    endedBefore,
                    last == PER_CALL);
        }
        return forgotten;
    }
}
