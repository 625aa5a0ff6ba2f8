package io.floe.agent.group.consumer;

import java.util.Objects;

/**
 * One member of a consumer group: its subscription and where its reconciliation stands. Immutable;
 * the group replaces a member with its next version.
 *
 * @param memberId the member id (chosen by the client from ConsumerGroupHeartbeat v1)
 * @param subscription what it asked for
 * @param epoch its member epoch: the target assignment epoch it last reconciled to, or
 *     {@link #STATIC_LEAVE_EPOCH} while a static member is away
 * @param previousEpoch its epoch before the last change, accepted once more when a response with the
 *     new epoch may have been lost
 * @param state its reconciliation state
 * @param assigned the partitions it owns (or is told to own)
 * @param pendingRevocation the partitions it must give up; it still owns them until it says so
 */
public record ConsumerMember(
        String memberId,
        MemberSubscription subscription,
        int epoch,
        int previousEpoch,
        MemberState state,
        Assignment assigned,
        Assignment pendingRevocation) {

    /** The epoch a member sends to leave the group. */
    public static final int LEAVE_EPOCH = -1;
    /** The epoch a static member sends to leave for now; it keeps its partitions until its session expires. */
    public static final int STATIC_LEAVE_EPOCH = -2;

    public ConsumerMember {
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(subscription, "subscription");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(assigned, "assigned");
        Objects.requireNonNull(pendingRevocation, "pendingRevocation");
    }

    /** A member that has just joined: epoch 0, nothing assigned. */
    public static ConsumerMember joining(String memberId) {
        return new ConsumerMember(memberId, MemberSubscription.NONE, 0, 0, MemberState.STABLE, Assignment.EMPTY,
                Assignment.EMPTY);
    }

    public String instanceId() {
        return subscription.instanceId();
    }

    public boolean isStatic() {
        return subscription.instanceId() != null;
    }

    /** Stable at the target epoch: nothing left to do for it. */
    public boolean isReconciledTo(int targetEpoch) {
        return state == MemberState.STABLE && epoch == targetEpoch;
    }

    public ConsumerMember withSubscription(MemberSubscription next) {
        return new ConsumerMember(memberId, next, epoch, previousEpoch, state, assigned, pendingRevocation);
    }

    /** The next step of its reconciliation; the current epoch becomes the previous one. */
    public ConsumerMember reconciled(MemberState nextState, int nextEpoch, Assignment nextAssigned,
            Assignment nextPendingRevocation) {
        return new ConsumerMember(memberId, subscription, nextEpoch, epoch, nextState, nextAssigned,
                nextPendingRevocation);
    }

    /**
     * A static member that left for now: it keeps its partitions for when it returns, but owns none
     * of those it was revoking (it closed, so it consumes nothing).
     */
    public ConsumerMember awayStatic() {
        return new ConsumerMember(memberId, subscription, STATIC_LEAVE_EPOCH, epoch, state, assigned,
                Assignment.EMPTY);
    }

    /** The same instance under a new member id, joining at epoch 0 with the partitions it had. */
    public ConsumerMember replacedBy(String newMemberId) {
        return new ConsumerMember(newMemberId, subscription, 0, 0, state, assigned, pendingRevocation);
    }
}
