package io.floe.agent.group.consumer;

import java.util.Objects;
import java.util.UUID;

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
 * @param assignedAt the epoch at which each partition of {@code assigned} and
 *     {@code pendingRevocation} was assigned to it, which decides the commits it may still make at an
 *     older epoch
 */
public record ConsumerMember(
        String memberId,
        MemberSubscription subscription,
        int epoch,
        int previousEpoch,
        MemberState state,
        Assignment assigned,
        Assignment pendingRevocation,
        Assignment unconfirmed,
        AssignmentEpochs assignedAt) {

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
        Objects.requireNonNull(assignedAt, "assignedAt");
    }

    /**
     * A member whose heartbeats have reported owning every partition it was given, all of them at its
     * current epoch.
     */
    public ConsumerMember(
            String memberId,
            MemberSubscription subscription,
            int epoch,
            int previousEpoch,
            MemberState state,
            Assignment assigned,
            Assignment pendingRevocation) {
        this(
                memberId,
                subscription,
                epoch,
                previousEpoch,
                state,
                assigned,
                pendingRevocation,
                Assignment.EMPTY,
                AssignmentEpochs.all(assigned.plus(pendingRevocation), epoch));
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
                memberId, next, epoch, previousEpoch, state, assigned, pendingRevocation, unconfirmed, assignedAt);
    }

    /**
     * Whether an offset commit sent at {@code clientEpoch} may store the partition's offset, as Kafka
     * decides since KIP-1251: at its current epoch always, at an older one only for a partition it has
     * owned since that epoch or before (its client may not have heard of the newer epoch yet), never at
     * a newer one.
     */
    public boolean mayCommit(int clientEpoch, UUID topic, int partition) {
        if (clientEpoch == epoch) {
            return true;
        }
        int assignedEpoch = assignedAt.epochOf(topic, partition);
        return clientEpoch < epoch && assignedEpoch >= 0 && assignedEpoch <= clientEpoch;
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
                unconfirmed.retainedIn(nextAssigned).plus(nextAssigned.minus(assigned)),
                assignedAt.next(nextAssigned.plus(nextPendingRevocation), nextEpoch));
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
                        stillUnconfirmed,
                        assignedAt);
    }

    /**
     * A static member that left for now: it keeps its partitions for when it returns, but owns none
     * of those it was revoking (it closed, so it consumes nothing).
     */
    public ConsumerMember awayStatic() {
        return new ConsumerMember(
                memberId,
                subscription,
                STATIC_LEAVE_EPOCH,
                epoch,
                state,
                assigned,
                Assignment.EMPTY,
                unconfirmed,
                assignedAt.next(assigned, epoch));
    }

    /**
     * The same instance under a new member id, joining at epoch 0 with the partitions it had; its new
     * client has taken none of them yet.
     */
    public ConsumerMember replacedBy(String newMemberId) {
        return new ConsumerMember(
                newMemberId, subscription, 0, 0, state, assigned, pendingRevocation, assigned, assignedAt);
    }
}
