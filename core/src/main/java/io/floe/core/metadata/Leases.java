package io.floe.core.metadata;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The metadata role of leases with epochs: maintenance and table jobs' leases, and consumer groups'
 * coordinator leases (DESIGN §8, fencing of coordinators). Follows the
 * {@linkplain io.floe.core.metadata package contract}; every method is an idempotent write (an
 * acquisition by the holder is a renewal at the same epoch; a release of a lease no longer held does
 * nothing).
 */
public interface Leases {

    /**
     * Takes the lease on {@code job} for {@code owner} until {@code now + ttl}: granted when nobody
     * holds it, when its holder's lease expired (the epoch then grows), or as a renewal when
     * {@code owner} holds it already. Empty while another owner's lease runs.
     */
    Optional<JobLease> acquireLease(String job, String owner, Instant now, Duration ttl);

    /** Gives up {@code lease} early; does nothing when it is no longer held at that epoch. */
    void releaseLease(JobLease lease);

    /**
     * Takes the coordinator lease of group {@code groupId} for {@code owner} until {@code now + ttl}:
     * granted when nobody holds it, when its holder's lease ran out or was released (the epoch then
     * grows), or as a renewal at the same epoch when {@code owner} holds it. Empty while another
     * owner's lease runs. {@code sessionTimeout} is the longest session timeout of the owner's members;
     * the next holder's {@link CoordinatorLease#priorMembersUntil()} is this lease's end plus it.
     */
    Optional<CoordinatorLease> acquireCoordinator(
            String groupId, String owner, Instant now, Duration ttl, Duration sessionTimeout);

    /**
     * Gives up {@code lease} at {@code now} (the group moved to another agent, or this one stops): the
     * next holder need not wait for it to run out. Does nothing when it is no longer held at that epoch.
     */
    void releaseCoordinator(CoordinatorLease lease, Instant now);
}
