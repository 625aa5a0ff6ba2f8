package io.floe.core.metadata;

import java.time.Instant;
import java.util.Objects;

/**
 * The right of agent {@code owner} to coordinate consumer group {@code groupId} until
 * {@code expiresAt} (DESIGN §8, fencing of coordinators). Every write the coordinator makes for the
 * group (offset commits) is conditional on {@code epoch}, which grows with every new holder and
 * with every lease that ran out, so a coordinator that lost the group (paused past expiry, or out of
 * date about the membership) can no longer write for it.
 *
 * @param priorMembersUntil until this time members of an earlier holder (or of this owner before
 *     its lease ran out) that the store has no record of may still believe they own partitions: their
 *     session timeouts have not passed since that holder last answered them. A new holder forms no
 *     generation before it. Recorded members ({@link Leases#recordedMembers}) are not covered: the new
 *     holder knows them and waits for each itself.
 */
public record CoordinatorLease(String groupId, String owner, long epoch, Instant expiresAt, Instant priorMembersUntil) {

    public CoordinatorLease {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(priorMembersUntil, "priorMembersUntil");
    }
}
