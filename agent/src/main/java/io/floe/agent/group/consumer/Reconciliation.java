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
 *
 * <p>Like Kafka's, the revocation step is skipped for partitions the member reports it gave up
 * already, but (unlike Kafka's) only for partitions it once reported owning. A partition it was
 * given and has never reported may be one its client is still taking: a Kafka consumer that can
 * resolve only part of an assignment (its metadata does not know a topic id yet) acknowledges that
 * part, reporting fewer partitions, and then takes the rest. Handing such a partition on at once
 * would let two consumers own it; it is revoked like any other, and moves once a heartbeat sent
 * after the revocation no longer reports it.
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

    private Reconciliation(ConsumerMember member, int targetEpoch, Assignment target, Owners owners, Assignment owned) {
        this.member = member;
        this.targetEpoch = targetEpoch;
        this.target = target;
        this.owners = owners;
        this.owned = owned;
    }

    /**
     * The member's next version; when it cannot move yet, the member itself (having confirmed the
     * partitions it reports owning).
     *
     * @param owned the partitions it reports owning, or null if its heartbeat did not report them
     */
    public static ConsumerMember next(
            ConsumerMember member, int targetEpoch, Assignment target, Owners owners, Assignment owned) {
        ConsumerMember reported = member.reporting(owned);
        if (reported.isReconciledTo(targetEpoch)) {
            return reported;
        }
        return new Reconciliation(reported, targetEpoch, target, owners, owned).step();
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
                (targeted.contains(partition) ? kept : revoking)
                        .computeIfAbsent(topic, t -> new TreeSet<>())
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
        if (!revoked.isEmpty() && (ownsAnyOf(revoked) || member.unconfirmed().intersects(revoked))) {
            // Revoke first, at the current epoch; the new partitions come once the member confirms.
            return member.reconciled(MemberState.UNREVOKED_PARTITIONS, member.epoch(), new Assignment(kept), revoked);
        }
        gained.forEach((topic, partitions) ->
                kept.computeIfAbsent(topic, t -> new TreeSet<>()).addAll(partitions));
        MemberState next = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
        return member.reconciled(next, targetEpoch, new Assignment(kept), Assignment.EMPTY);
    }

    /** Without a report of what the member owns, it must be assumed to own everything it was given. */
    private boolean ownsAnyOf(Assignment partitions) {
        return owned == null || owned.intersects(partitions);
    }
}
