package io.floe.core.metadata;

import io.floe.core.group.GroupMembership;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The metadata role of leases with epochs: maintenance and table jobs' leases, and consumer groups'
 * coordinator leases (DESIGN §8, fencing of coordinators) with the members recorded under them.
 * Follows the {@linkplain io.floe.core.metadata package contract}; each method's kind is its
 * {@link MetadataOperation} (an acquisition by the holder is a renewal at the same epoch; a release of a
 * lease no longer held does nothing).
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
     * owner's lease runs. {@code sessionTimeout} is the longest session timeout of the owner's members.
     * When the lease changes hands, the members the earlier holder recorded at its epoch
     * ({@link #recordMembers}) pass to the new epoch ({@link #recordedMembers}), and the next holder's
     * {@link CoordinatorLease#priorMembersUntil()} stays what the earlier holder's was; when the earlier
     * holder recorded none, members unknown to the store may own partitions until the earlier lease's
     * end plus {@code sessionTimeout}, and {@link CoordinatorLease#priorMembersUntil()} is that (or the
     * earlier wait, if longer).
     */
    Optional<CoordinatorLease> acquireCoordinator(
            String groupId, String owner, Instant now, Duration ttl, Duration sessionTimeout);

    /**
     * Gives up {@code lease} at {@code now} (the group moved to another agent, or this one stops): the
     * next holder need not wait for it to run out. Does nothing when it is no longer held at that epoch.
     */
    void releaseCoordinator(CoordinatorLease lease, Instant now);

    /**
     * Records {@code members} as group {@code lease.groupId()}'s membership at {@code lease.epoch()},
     * replacing what was recorded, only while the lease is held by {@code lease.owner()} at that epoch;
     * false, and nothing changes, when it is not. A coordinator records a member before the member
     * learns it is in a generation. Fenced.
     */
    boolean recordMembers(CoordinatorLease lease, GroupMembership members);

    /**
     * The membership recorded for the group at {@code lease.epoch()}: by its holder, or by the holder
     * before it and passed on when the lease changed hands. Empty when none is: the holders before
     * recorded nothing (they ran an earlier version, or the lease is new), and the members to wait for
     * are unknown ({@link CoordinatorLease#priorMembersUntil()} bounds them).
     */
    Optional<GroupMembership> recordedMembers(CoordinatorLease lease);

    /**
     * Forgets up to {@code max} coordinator leases on which nothing depends any more, oldest first, with
     * the members recorded under them: leases no agent has held since {@code endedBefore} (they ran out or
     * were released before it) and whose groups have no member that may still be alive at {@code now}
     * (the sessions of the members recorded with the lease, and of the holder's longest session, counted
     * from the lease's end, and {@link CoordinatorLease#priorMembersUntil()}, have all run out). A lease
     * taken later for such a group starts at an epoch above every epoch the group's coordinators ever had,
     * so a holder paused with an earlier epoch stays fenced. Returns how many were forgotten.
     */
    int expireCoordinators(Instant endedBefore, Instant now, int max);

    /**
     * Forgets up to {@code max} job leases that ran out before {@code endedBefore}, and released ones that
     * nobody took since (a release records no time), oldest first: the leases of jobs that no longer run
     * (tables of deleted topics, node ids above the cluster's size). A lease taken later under such a name
     * starts at an epoch above every epoch that name ever had. Returns how many were forgotten.
     */
    int expireLeases(Instant endedBefore, int max);
}
