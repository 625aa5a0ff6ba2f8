package io.floe.core.lease;

import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.Leases;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job's lease loop: each {@link #turn} takes or renews the lease named {@code name} and, when a
 * round is due and this agent holds the lease, runs it; {@link #release} gives the lease up. What the
 * job does around that (its metrics, logs, schedule and stall watch) it does in its {@link Rounds}
 * hooks, always on the thread that turns the loop. Store failures propagate to the caller.
 *
 * <p>A job whose rounds may outlast the lease has it renewed from another thread as well
 * ({@link #renew}), on a schedule of its own that no round holds up: the renewal only talks to the
 * store, and keeps the lease during a round only until the round has run for its longest time, so a
 * round that hangs lets its job move to another agent. One thread turns the loop; any thread may renew
 * or release it.
 */
public final class LeaseLoop {

    private static final Logger LOGGER = LoggerFactory.getLogger(LeaseLoop.class);

    /** What a job does in its loop. */
    public interface Rounds {

        /**
         * Runs one round under {@code lease}, which this agent held at {@code now}; the round may outlive
         * it, so whatever it writes must be fenced by the lease's epoch.
         */
        void run(JobLease lease, Instant now);

        /**
         * This agent took the lease under a new epoch; {@code othersHeldSince}: another agent held it
         * since this agent last did (see {@link #heldByAnotherSince}).
         */
        default void taken(JobLease lease, boolean othersHeldSince) {}

        /** Another agent holds the lease; {@code wasHeld}: this agent held it until now. */
        default void notHeld(boolean wasHeld) {}
    }

    private final String name;
    private final String owner;
    private final Leases metadata;
    private final Duration ttl;
    private final Duration renewAfter;
    /** The lease held now; null when none is. */
    private JobLease lease;
    /** The last lease this agent held (it may have lapsed), to tell its own retake from another's. */
    private JobLease lastHeld;
    /** A renewal found the lease gone, and no turn has told the job yet. */
    private boolean lostUntold;
    /** A renewal took the lease again under a new epoch (it had lapsed), and no turn has told the job yet. */
    private boolean takenUntold;

    private Instant takenAt = Instant.MIN;
    /** When the round running now started; null between rounds. */
    private Instant roundStartedAt;
    /** The round running now has been logged as overdue. */
    private boolean overdueLogged;

    /**
     * {@code ttl}: how long a taken or renewed lease lasts; {@code renewAfter}: how long after taking it a
     * held lease is renewed by a turn even when no round is due, so the job stays with this agent between
     * rounds.
     */
    public LeaseLoop(String name, String owner, Leases metadata, Duration ttl, Duration renewAfter) {
        this.name = name;
        this.owner = owner;
        this.metadata = metadata;
        this.ttl = ttl;
        this.renewAfter = renewAfter;
    }

    /**
     * One turn at {@code now}: asks for the lease when a round is {@code due} or a held lease is due for
     * renewal (a lease that is not held is asked for only when a round is due), then runs the round when
     * it is due and the lease is this agent's.
     */
    public void turn(Instant now, boolean due, Rounds rounds) {
        Turn turn = take(now, due);
        switch (turn.kind()) {
            case NOTHING -> {}
            case NOT_HELD -> rounds.notHeld(turn.wasHeld());
            case HELD -> {
                if (turn.taken()) {
                    rounds.taken(turn.lease(), turn.othersHeldSince());
                }
                if (due) {
                    run(turn.lease(), now, rounds);
                }
            }
        }
    }

    private enum TurnKind {
        NOTHING,
        NOT_HELD,
        HELD
    }

    /** What a turn found, decided under the loop's lock; the hooks run outside it. */
    private record Turn(TurnKind kind, JobLease lease, boolean taken, boolean othersHeldSince, boolean wasHeld) {}

    private synchronized Turn take(Instant now, boolean due) {
        boolean renew = lease != null && now.isAfter(takenAt.plus(renewAfter));
        if (!due && !renew) {
            if (lostUntold) {
                lostUntold = false;
                return new Turn(TurnKind.NOT_HELD, null, false, false, true);
            }
            return new Turn(TurnKind.NOTHING, null, false, false, false);
        }
        Optional<JobLease> held = metadata.acquireLease(name, owner, now, ttl);
        boolean wasHeld = lease != null || lostUntold;
        lostUntold = false;
        if (held.isEmpty()) {
            lease = null;
            takenUntold = false;
            return new Turn(TurnKind.NOT_HELD, null, false, false, wasHeld);
        }
        boolean taken = lease == null || lease.epoch() != held.get().epoch() || takenUntold;
        takenUntold = false;
        boolean others = taken && heldByAnotherSince(lastHeld, held);
        lease = held.get();
        lastHeld = lease;
        takenAt = now;
        return new Turn(TurnKind.HELD, lease, taken, others, false);
    }

    private void run(JobLease held, Instant now, Rounds rounds) {
        synchronized (this) {
            roundStartedAt = now;
            overdueLogged = false;
        }
        try {
            rounds.run(held, now);
        } finally {
            synchronized (this) {
                roundStartedAt = null;
            }
        }
    }

    /**
     * Renews the held lease at {@code now}, from any thread: a lease not held is left alone (a turn asks
     * for it), and so is one whose round has run for {@code roundMax} already (it is left to run out, so
     * that a round that hangs does not keep its job here). A lease found taken by another agent is lost:
     * the round running now is a zombie (its writes are fenced by the epoch it began with), and the next
     * turn tells the job. A lease that had lapsed (the agent paused) and is taken again comes under a new
     * epoch, which the next turn tells the job of. Returns whether the lease is held.
     */
    public synchronized boolean renew(Instant now, Duration roundMax) {
        if (lease == null) {
            return false;
        }
        if (roundStartedAt != null && !now.isBefore(roundStartedAt.plus(roundMax))) {
            if (overdueLogged) {
                return true;
            }
            overdueLogged = true;
            LOGGER.warn(
                    "not renewing lease name={} owner={} epoch={}: its round has run since {}, longer than {}; it"
                            + " is left to run out so another agent can take the job",
                    name,
                    owner,
                    lease.epoch(),
                    roundStartedAt,
                    roundMax);
            return true;
        }
        Optional<JobLease> still = metadata.acquireLease(name, owner, now, ttl);
        if (still.isEmpty()) {
            LOGGER.info("lease lost name={} owner={} epoch={}: another agent holds it", name, owner, lease.epoch());
            lease = null;
            lostUntold = true;
            return false;
        }
        if (still.get().epoch() != lease.epoch()) {
            LOGGER.info(
                    "lease lapsed and taken again name={} owner={} epoch={} newEpoch={}",
                    name,
                    owner,
                    lease.epoch(),
                    still.get().epoch());
            takenUntold = true;
        }
        lease = still.get();
        takenAt = now;
        return true;
    }

    /**
     * Asks for the lease again at {@code now}, as after a round that may have outlived it: true when
     * another agent held it since this agent's last take. The loop keeps whatever it holds now.
     */
    public synchronized boolean othersHeldSince(Instant now) {
        Optional<JobLease> still = metadata.acquireLease(name, owner, now, ttl);
        boolean others = heldByAnotherSince(lastHeld, still);
        if (still.isEmpty()) {
            lostUntold |= lease != null;
            lease = null;
        } else if (lease != null) {
            // Taken again after a lapse: the next turn tells the job of the new epoch.
            takenUntold |= still.get().epoch() != lease.epoch();
            lease = still.get();
            takenAt = now;
        }
        return others;
    }

    /** The lease this agent holds, as of its last take or renewal; empty when it holds none. */
    public synchronized Optional<JobLease> lease() {
        return Optional.ofNullable(lease);
    }

    /** Gives the lease up so another agent can take the job at once; a failure to is only logged. */
    public synchronized void release() {
        if (lease != null) {
            try {
                metadata.releaseLease(lease);
            } catch (RuntimeException e) {
                LOGGER.debug("cannot release lease name={}: {}", name, e.toString());
            }
            lease = null;
        }
        lostUntold = false;
        takenUntold = false;
    }

    /**
     * Whether another agent held the lease since {@code before}: it holds it now, or took it and let it
     * go (this agent's own retake of a lapsed lease moves the epoch by one, another holder's by one more).
     */
    static boolean heldByAnotherSince(JobLease before, Optional<JobLease> now) {
        return now.isEmpty() || before != null && now.get().epoch() > before.epoch() + 1;
    }
}
