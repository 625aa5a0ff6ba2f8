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
 * @param unconfirmed the partitions of {@code assigned} it was given that none of its heartbeats has
 *     reported owning yet. Its client may still be taking them (a Kafka consumer acknowledges an
 *     assignment it could resolve only in part, reporting fewer partitions, and goes on to take the
 *     rest), so not reporting them does not show it let them go: they are revoked explicitly.
 */
public record ConsumerMember(
        String memberId,
        MemberSubscription subscription,
        int epoch,
        int previousEpoch,
        MemberState state,
        Assignment assigned,
        Assignment pendingRevocation,
        Assignment unconfirmed) {

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
        Objects.requireNonNull(unconfirmed, "unconfirmed");
    }

    /** A member whose heartbeats have reported owning every partition it was given. */
    public ConsumerMember(
            String memberId,
            MemberSubscription subscription,
            int epoch,
            int previousEpoch,
            MemberState state,
            Assignment assigned,
            Assignment pendingRevocation) {
        this(memberId, subscription, epoch, previousEpoch, state, assigned, pendingRevocation, Assignment.EMPTY);
    }

    /** A member that has just joined: epoch 0, nothing assigned. */
    public static ConsumerMember joining(String memberId) {
        return new ConsumerMember(
                memberId, MemberSubscription.NONE, 0, 0, MemberState.STABLE, Assignment.EMPTY, Assignment.EMPTY);
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
        return new ConsumerMember(
                memberId, next, epoch, previousEpoch, state, assigned, pendingRevocation, unconfirmed);
    }

    /**
     * The next step of its reconciliation; the current epoch becomes the previous one. The partitions
     * it gains are unconfirmed until a heartbeat reports them owned.
     */
    public ConsumerMember reconciled(
            MemberState nextState, int nextEpoch, Assignment nextAssigned, Assignment nextPendingRevocation) {
        return new ConsumerMember(
                memberId,
                subscription,
                nextEpoch,
                epoch,
                nextState,
                nextAssigned,
                nextPendingRevocation,
                unconfirmed.retainedIn(nextAssigned).plus(nextAssigned.minus(assigned)));
    }

    /**
     * The member once a heartbeat reported owning {@code owned} (null: not reported): those of its
     * partitions are confirmed.
     */
    public ConsumerMember reporting(Assignment owned) {
        if (owned == null || unconfirmed.isEmpty()) {
            return this;
        }
        Assignment stillUnconfirmed = unconfirmed.minus(owned);
        return stillUnconfirmed.equals(unconfirmed)
                ? this
                : new ConsumerMember(
                        memberId,
                        subscription,
                        epoch,
                        previousEpoch,
                        state,
                        assigned,
                        pendingRevocation,
                        stillUnconfirmed);
    }

    /**
     * A static member that left for now: it keeps its partitions for when it returns, but owns none
     * of those it was revoking (it closed, so it consumes nothing).
     */
    public ConsumerMember awayStatic() {
        return new ConsumerMember(
                memberId, subscription, STATIC_LEAVE_EPOCH, epoch, state, assigned, Assignment.EMPTY, unconfirmed);
    }

    /**
     * The same instance under a new member id, joining at epoch 0 with the partitions it had; its new
     * client has taken none of them yet.
     */
    public ConsumerMember replacedBy(String newMemberId) {
        return new ConsumerMember(newMemberId, subscription, 0, 0, state, assigned, pendingRevocation, assigned);
    }
}
