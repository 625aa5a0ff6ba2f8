package io.floe.agent.group.consumer;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * One step of a member towards its target assignment, as Kafka's CurrentAssignmentBuilder takes it.
 * The rule that keeps a partition from having two owners: a member keeps what stays in its target,
 * gives up the rest first (staying at its epoch until it reports them revoked), and is handed a
 * newly targeted partition only once no other member owns it.
 */
public final class Reconciliation {

    /** Who owns a partition now (its assigned or pending-revocation partitions), or null. */
    @FunctionalInterface
    public interface Owners {
        String ownerOf(UUID topic, int partition);
    }

    private final ConsumerMember member;
    private final int targetEpoch;
    private final Assignment target;
    private final Owners owners;
    /** The partitions the member says it owns, or null when its heartbeat did not say (unchanged). */
    private final Assignment owned;

    private Reconciliation(ConsumerMember member, int targetEpoch, Assignment target, Owners owners,
            Assignment owned) {
        this.member = member;
        this.targetEpoch = targetEpoch;
        this.target = target;
        this.owners = owners;
        this.owned = owned;
    }

    /**
     * The member's next version; the member itself when it cannot move yet.
     *
     * @param owned the partitions it reports owning, or null if its heartbeat did not report them
     */
    public static ConsumerMember next(ConsumerMember member, int targetEpoch, Assignment target, Owners owners,
            Assignment owned) {
        if (member.isReconciledTo(targetEpoch)) {
            return member;
        }
        return new Reconciliation(member, targetEpoch, target, owners, owned).step();
    }

    private ConsumerMember step() {
        return switch (member.state()) {
            case STABLE -> member.epoch() != targetEpoch ? towardsTarget() : member;
            // Nothing moves until the member has let go of every partition it was asked to revoke.
            case UNREVOKED_PARTITIONS -> ownsAnyOf(member.pendingRevocation()) ? member : towardsTarget();
            case UNRELEASED_PARTITIONS -> towardsTarget();
        };
    }

    private ConsumerMember towardsTarget() {
        Map<UUID, Set<Integer>> kept = new HashMap<>();
        Map<UUID, Set<Integer>> revoking = new HashMap<>();
        Map<UUID, Set<Integer>> gained = new HashMap<>();
        boolean unreleased = false;
        Set<UUID> topics = new HashSet<>(target.partitions().keySet());
        topics.addAll(member.assigned().partitions().keySet());
        for (UUID topic : topics) {
            Set<Integer> targeted = target.partitionsOf(topic);
            Set<Integer> current = member.assigned().partitionsOf(topic);
            for (int partition : current) {
                (targeted.contains(partition) ? kept : revoking).computeIfAbsent(topic, t -> new TreeSet<>())
                        .add(partition);
            }
            for (int partition : targeted) {
                if (current.contains(partition)) {
                    continue;
                }
                String owner = owners.ownerOf(topic, partition);
                if (owner == null || owner.equals(member.memberId())) {
                    gained.computeIfAbsent(topic, t -> new TreeSet<>()).add(partition);
                } else {
                    unreleased = true;
                }
            }
        }
        Assignment revoked = new Assignment(revoking);
        if (!revoked.isEmpty() && ownsAnyOf(revoked)) {
            // Revoke first, at the current epoch; the new partitions come once the member confirms.
            return member.reconciled(MemberState.UNREVOKED_PARTITIONS, member.epoch(), new Assignment(kept), revoked);
        }
        gained.forEach((topic, partitions) -> kept.computeIfAbsent(topic, t -> new TreeSet<>()).addAll(partitions));
        MemberState next = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
        return member.reconciled(next, targetEpoch, new Assignment(kept), Assignment.EMPTY);
    }

    /** Without a report of what the member owns, it must be assumed to own everything it was given. */
    private boolean ownsAnyOf(Assignment partitions) {
        return owned == null || owned.intersects(partitions);
    }
}
