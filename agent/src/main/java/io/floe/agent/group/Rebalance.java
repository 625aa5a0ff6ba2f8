package io.floe.agent.group;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic protocol's transitions, as Kafka's coordinator makes them: starting a rebalance,
 * completing the join phase (the next generation), the initial rebalance delay, the sync deadline,
 * session expiry and member removal. Every method runs under the group's lock.
 */
final class Rebalance {

    private static final Logger LOGGER = LoggerFactory.getLogger(Rebalance.class);

    private final GroupCoordinatorConfig config;
    private final Clock clock;
    private final GroupMetrics metrics;

    Rebalance(GroupCoordinatorConfig config, Clock clock, GroupMetrics metrics) {
        this.config = config;
        this.clock = clock;
        this.metrics = metrics;
    }

    /** Starts a rebalance if none runs; otherwise completes the join phase if everyone has joined. */
    void prepareOrCompleteJoin(ClassicGroup group, String reason) {
        if (group.canRebalance()) {
            prepare(group, reason);
        } else {
            maybeCompleteJoinPhase(group);
        }
    }

    /**
     * Moves the group to PreparingRebalance. Members waiting for their assignment are told to rejoin.
     * A new group waits the initial delay for more members; otherwise the join phase ends when every
     * member rejoined or the rebalance timeout passed.
     */
    void prepare(ClassicGroup group, String reason) {
        if (group.isIn(GroupState.COMPLETING_REBALANCE)) {
            resetAndPropagateAssignment(group, GroupError.REBALANCE_IN_PROGRESS);
        }
        cancelSyncDeadline(group);
        boolean initial = group.isIn(GroupState.EMPTY);
        if (initial) {
            long delayMs = config.initialRebalanceDelay().toMillis();
            long remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
            group.timeouts()
                    .schedule(
                            GroupTimeouts.JOIN,
                            delayMs,
                            () -> completeInitialRebalanceOrWait(group, delayMs, remainingMs));
        }
        GroupState from = group.state();
        group.transitionTo(GroupState.PREPARING_REBALANCE, clock.millis());
        LOGGER.info(
                "Preparing to rebalance group={} from={} generation={} reason={}",
                group.groupId(),
                from.label(),
                group.generationId(),
                reason);
        if (!initial) {
            if (group.hasAllMembersJoined()) {
                completeJoin(group);
            } else {
                group.timeouts().schedule(GroupTimeouts.JOIN, group.rebalanceTimeoutMs(), () -> completeJoin(group));
            }
        }
    }

    /** Completes the join phase when every member has rejoined, except in the initial rebalance, which waits out its delay. */
    void maybeCompleteJoinPhase(ClassicGroup group) {
        if (group.isIn(GroupState.PREPARING_REBALANCE)
                && group.previousState() != GroupState.EMPTY
                && group.hasAllMembersJoined()) {
            completeJoin(group);
        }
    }

    /** Each member that joined during the initial delay extends it, up to the rebalance timeout. */
    private void completeInitialRebalanceOrWait(ClassicGroup group, long delayMs, long remainingMs) {
        if (group.newMemberAdded() && remainingMs != 0) {
            group.newMemberAdded(false);
            long nextDelayMs = Math.min(config.initialRebalanceDelay().toMillis(), remainingMs);
            long nextRemainingMs = Math.max(remainingMs - delayMs, 0);
            group.timeouts()
                    .schedule(
                            GroupTimeouts.JOIN,
                            nextDelayMs,
                            () -> completeInitialRebalanceOrWait(group, nextDelayMs, nextRemainingMs));
        } else {
            completeJoin(group);
        }
    }

    /**
     * Ends the join phase: dynamic members that did not rejoin are dropped (static ones keep their
     * place until their session expires, unless an earlier coordinator's record is all that is known
     * of them: their metadata would be missing from the leader's view), the generation advances and
     * every waiting member gets its JoinGroup answer, the leader with everyone's metadata. Then the
     * group waits for syncs.
     */
    void completeJoin(ClassicGroup group) {
        group.timeouts().cancel(GroupTimeouts.JOIN);
        if (!group.isIn(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        List<String> dropped = group.members().stream()
                .filter(member -> !member.isAwaitingJoin() && (!member.isStatic() || member.isLoaded()))
                .map(GroupMember::memberId)
                .toList();
        dropped.forEach(memberId -> {
            group.remove(memberId);
            group.timeouts().cancel(GroupTimeouts.session(memberId));
        });
        if (!dropped.isEmpty()) {
            LOGGER.info("Removed members that did not rejoin group={} members={}", group.groupId(), dropped);
        }
        if (!group.maybeElectJoinedLeader() && group.size() > 0) {
            // Only static members that have not rejoined are left: wait until they do or their sessions expire.
            LOGGER.warn("No member rejoined group={}; waiting another rebalance timeout", group.groupId());
            group.timeouts().schedule(GroupTimeouts.JOIN, group.rebalanceTimeoutMs(), () -> completeJoin(group));
            return;
        }
        group.initNextGeneration(clock.millis());
        if (group.isIn(GroupState.EMPTY)) {
            LOGGER.info("Group is now empty group={} generation={}", group.groupId(), group.generationId());
            return;
        }
        metrics.rebalanced();
        LOGGER.info(
                "Stabilized group={} generation={} protocol={} members={} leader={}",
                group.groupId(),
                group.generationId(),
                group.protocolName(),
                group.size(),
                group.leaderId());
        for (GroupMember member : group.members()) {
            List<JoinedMember> members = group.isLeader(member.memberId()) ? group.joinedMembers() : List.of();
            group.completeJoin(member, currentGeneration(group, member.memberId(), members, group.leaderId(), false));
            scheduleSessionTimeout(group, member, member.sessionTimeoutMs());
            member.isNew(false);
            group.addPendingSyncMember(member.memberId());
        }
        int generation = group.generationId();
        group.timeouts()
                .schedule(GroupTimeouts.SYNC, group.rebalanceTimeoutMs(), () -> expirePendingSyncs(group, generation));
    }

    static JoinResponse currentGeneration(
            ClassicGroup group, String memberId, List<JoinedMember> members, String leaderId, boolean skipAssignment) {
        return new JoinResponse(
                GroupError.NONE,
                memberId,
                group.generationId(),
                group.protocolType(),
                group.protocolName(),
                leaderId,
                members,
                skipAssignment);
    }

    /** Members that never sent their SyncGroup within the rebalance timeout are removed, and the group rebalances. */
    private void expirePendingSyncs(ClassicGroup group, int generation) {
        boolean waiting = group.isIn(GroupState.COMPLETING_REBALANCE) || group.isIn(GroupState.STABLE);
        Set<String> pending = group.pendingSyncMembers();
        if (generation != group.generationId() || !waiting || pending.isEmpty()) {
            return;
        }
        pending.forEach(memberId -> {
            group.remove(memberId);
            group.timeouts().cancel(GroupTimeouts.session(memberId));
        });
        prepare(group, "members " + pending + " sent no SyncGroup within the rebalance timeout");
    }

    void cancelSyncDeadline(ClassicGroup group) {
        group.clearPendingSyncMembers();
        group.timeouts().cancel(GroupTimeouts.SYNC);
    }

    void syncReceived(ClassicGroup group, String memberId) {
        group.removePendingSyncMember(memberId);
        if (group.pendingSyncMembers().isEmpty()) {
            group.timeouts().cancel(GroupTimeouts.SYNC);
        }
    }

    // ----- assignment

    /**
     * Stores the leader's assignment (empty for members it left out), answers every waiting
     * SyncGroup and makes the group Stable.
     */
    void stabilize(ClassicGroup group, Map<String, byte[]> assignments) {
        group.members()
                .forEach(member ->
                        member.assignment(assignments.getOrDefault(member.memberId(), SyncResponse.NO_ASSIGNMENT)));
        propagateAssignment(group, GroupError.NONE);
        group.transitionTo(GroupState.STABLE, clock.millis());
    }

    private void resetAndPropagateAssignment(ClassicGroup group, GroupError error) {
        group.members().forEach(member -> member.assignment(SyncResponse.NO_ASSIGNMENT));
        propagateAssignment(group, error);
    }

    private void propagateAssignment(ClassicGroup group, GroupError error) {
        boolean ok = error == GroupError.NONE;
        for (GroupMember member : group.members()) {
            SyncResponse response = new SyncResponse(
                    error, ok ? group.protocolType() : null, ok ? group.protocolName() : null, member.assignment());
            if (group.completeSync(member, response)) {
                // A session that expired while the member waited was ignored; start a fresh one.
                scheduleSessionTimeout(group, member, member.sessionTimeoutMs());
            }
        }
    }

    // ----- sessions

    void scheduleSessionTimeout(ClassicGroup group, GroupMember member, long timeoutMs) {
        String memberId = member.memberId();
        group.timeouts().schedule(GroupTimeouts.session(memberId), timeoutMs, () -> expireSession(group, memberId));
    }

    void schedulePendingMemberTimeout(ClassicGroup group, String memberId, long timeoutMs) {
        group.timeouts().schedule(GroupTimeouts.session(memberId), timeoutMs, () -> expireSession(group, memberId));
    }

    private void expireSession(ClassicGroup group, String memberId) {
        if (group.isIn(GroupState.DEAD)) {
            return;
        }
        if (group.isPendingMember(memberId)) {
            LOGGER.info("Pending member expired group={} member={}", group.groupId(), memberId);
            group.remove(memberId);
            if (group.isIn(GroupState.PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
                completeJoin(group);
            }
            return;
        }
        GroupMember member = group.member(memberId);
        if (member != null && !member.hasSatisfiedHeartbeat()) {
            LOGGER.info(
                    "Session expired, removing member group={} member={} instance={} sessionTimeoutMs={}",
                    group.groupId(),
                    memberId,
                    member.groupInstanceId(),
                    member.sessionTimeoutMs());
            removeMember(group, memberId, "session of member " + memberId + " expired");
        }
    }

    /** Removes a member and moves the group on: a rebalance, or the end of the running join phase. */
    void removeMember(ClassicGroup group, String memberId, String reason) {
        group.remove(memberId);
        group.timeouts().cancel(GroupTimeouts.session(memberId));
        if (group.isIn(GroupState.STABLE) || group.isIn(GroupState.COMPLETING_REBALANCE)) {
            prepareOrCompleteJoin(group, reason);
        } else if (group.isIn(GroupState.PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
            completeJoin(group);
        }
    }
}
