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
 * hooks. Store failures propagate to the caller. Not thread-safe: one thread drives a loop.
 */
public final class LeaseLoop {

    private static final Logger LOGGER = LoggerFactory.getLogger(LeaseLoop.class);

    /** What a job does in its loop. */
    public interface Rounds {

        /** Runs one round; this agent held the lease at {@code now}, and a round may outlive it. */
        void run(Instant now);

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
    private JobLease lease;
    private Instant takenAt = Instant.MIN;

    /**
     * {@code ttl}: how long a taken or renewed lease lasts; {@code renewAfter}: how long after taking it a
     * held lease is renewed even when no round is due, so the job stays with this agent between rounds.
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
        boolean renew = lease != null && now.isAfter(takenAt.plus(renewAfter));
        if (!due && !renew) {
            return;
        }
        Optional<JobLease> held = metadata.acquireLease(name, owner, now, ttl);
        if (held.isEmpty()) {
            boolean wasHeld = lease != null;
            lease = null;
            rounds.notHeld(wasHeld);
            return;
        }
        if (lease == null || lease.epoch() != held.get().epoch()) {
            rounds.taken(held.get(), heldByAnotherSince(lease, held));
        }
        lease = held.get();
        takenAt = now;
        if (due) {
            rounds.run(now);
        }
    }

    /**
     * Asks for the lease again at {@code now}, as after a round that may have outlived it: true when
     * another agent held it since this agent's last take. The loop keeps whatever it holds now.
     */
    public boolean othersHeldSince(Instant now) {
        Optional<JobLease> still = metadata.acquireLease(name, owner, now, ttl);
        boolean others = heldByAnotherSince(lease, still);
        lease = still.orElse(null);
        return others;
    }

    /** The lease this agent holds, as of its last take; empty when it holds none. */
    public Optional<JobLease> lease() {
        return Optional.ofNullable(lease);
    }

    /** Gives the lease up so another agent can take the job at once; a failure to is only logged. */
    public void release() {
        if (lease != null) {
            try {
                metadata.releaseLease(lease);
            } catch (RuntimeException e) {
                LOGGER.debug("cannot release lease name={}: {}", name, e.toString());
            }
            lease = null;
        }
    }

    /**
     * Whether another agent held the lease since {@code before}: it holds it now, or took it and let it
     * go (this agent's own retake of a lapsed lease moves the epoch by one, another holder's by one more).
     */
    static boolean heldByAnotherSince(JobLease before, Optional<JobLease> now) {
        return now.isEmpty() || before != null && now.get().epoch() > before.epoch() + 1;
    }
}
