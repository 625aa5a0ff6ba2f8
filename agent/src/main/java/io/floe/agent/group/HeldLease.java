package io.floe.agent.group;

import io.floe.core.group.GroupMembership;
import io.floe.core.metadata.CoordinatorLease;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A coordinator lease this agent holds ({@link GroupLeases}) and what its term knows: until when the
 * lease is trusted here, when a generation may start, when the lease was last used, the membership
 * recorded at its epoch (null while none is), and the consumer-protocol members of an earlier term that
 * have neither rejoined nor left. Once none of those is left, generations may start from
 * {@code unknownMembersUntil} (the wait for members nobody recorded); their sessions bound the wait for
 * them ({@code generationsFrom}). Immutable.
 */
record HeldLease(
        CoordinatorLease lease,
        Instant validUntil,
        Instant generationsFrom,
        Instant usedAt,
        GroupMembership recorded,
        Set<String> awaited,
        Instant unknownMembersUntil) {

    HeldLease {
        awaited = Set.copyOf(awaited);
    }

    HeldLease used(Instant now) {
        return new HeldLease(lease, validUntil, generationsFrom, now, recorded, awaited, unknownMembersUntil);
    }

    HeldLease renewed(CoordinatorLease renewal, Instant trustedUntil) {
        return new HeldLease(renewal, trustedUntil, generationsFrom, usedAt, recorded, awaited, unknownMembersUntil);
    }

    HeldLease recording(GroupMembership members) {
        return new HeldLease(lease, validUntil, generationsFrom, usedAt, members, awaited, unknownMembersUntil);
    }

    /** {@code memberId} rejoined or left: when it was the last awaited, generations may start sooner. */
    HeldLease seen(String memberId) {
        if (!awaited.contains(memberId)) {
            return this;
        }
        Set<String> rest = new HashSet<>(awaited);
        rest.remove(memberId);
        Instant from = rest.isEmpty() ? unknownMembersUntil : generationsFrom;
        return new HeldLease(lease, validUntil, from, usedAt, recorded, rest, unknownMembersUntil);
    }

    /** At {@code now}: the awaited members whose sessions ran out are awaited no more. */
    HeldLease awaitingAt(Instant now) {
        if (awaited.isEmpty() || now.isBefore(generationsFrom)) {
            return this;
        }
        return new HeldLease(lease, validUntil, generationsFrom, usedAt, recorded, Set.of(), unknownMembersUntil);
    }

    /**
     * What to record: the members in memory, and the earlier term's members still awaited, which may
     * own partitions until they are back (a record without them would let the next term forget them).
     */
    GroupMembership toRecord(GroupMembership inMemory) {
        if (awaited.isEmpty() || recorded == null) {
            return inMemory;
        }
        List<GroupMembership.Member> members = new ArrayList<>(inMemory.members());
        for (GroupMembership.Member earlier : recorded.members()) {
            if (awaited.contains(earlier.memberId())
                    && inMemory.member(earlier.memberId()).isEmpty()) {
                members.add(earlier);
            }
        }
        return new GroupMembership(
                GroupMembership.Protocol.CONSUMER,
                Math.max(inMemory.generationId(), recorded.generationId()),
                "",
                "",
                members);
    }
}
