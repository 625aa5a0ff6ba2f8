package io.floe.agent.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What members send between joins: SyncGroup, Heartbeat, LeaveGroup, and the member checks of
 * OffsetCommit, with Kafka's errors. Runs under the group's lock.
 */
final class MemberRequests {

    private static final Logger LOGGER = LoggerFactory.getLogger(MemberRequests.class);

    private final Rebalance rebalance;

    MemberRequests(Rebalance rebalance) {
        this.rebalance = rebalance;
    }

    /**
     * Followers wait for the leader's assignment; the leader's SyncGroup stores it, answers everyone
     * and makes the group Stable. In a Stable group a member simply gets its assignment again.
     */
    void sync(ClassicGroup group, SyncRequest request, CompletableFuture<SyncResponse> future) {
        GroupError error = validateSync(group, request);
        if (error != GroupError.NONE) {
            group.complete(future, SyncResponse.failed(error));
            return;
        }
        GroupMember member = group.member(request.memberId());
        switch (group.state()) {
            case PREPARING_REBALANCE -> group.complete(future, SyncResponse.failed(GroupError.REBALANCE_IN_PROGRESS));
            case COMPLETING_REBALANCE -> {
                group.complete(member.awaitSync(future), SyncResponse.failed(GroupError.REBALANCE_IN_PROGRESS));
                rebalance.syncReceived(group, member.memberId());
                if (group.isLeader(member.memberId())) {
                    LOGGER.info(
                            "Assignment received from leader group={} leader={} generation={} members={}",
                            group.groupId(),
                            member.memberId(),
                            group.generationId(),
                            group.size());
                    rebalance.stabilize(group, request.assignments());
                }
            }
            case STABLE -> {
                rebalance.syncReceived(group, member.memberId());
                group.complete(
                        future,
                        new SyncResponse(
                                GroupError.NONE, group.protocolType(), group.protocolName(), member.assignment()));
            }
            default -> group.complete(future, SyncResponse.failed(GroupError.UNKNOWN_MEMBER_ID));
        }
    }

    private static GroupError validateSync(ClassicGroup group, SyncRequest request) {
        if (group.isIn(GroupState.DEAD)) {
            return GroupError.COORDINATOR_NOT_AVAILABLE;
        } else if (group.isIn(GroupState.EMPTY)) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        GroupError member = group.validateMember(request.memberId(), request.groupInstanceId());
        if (member != GroupError.NONE) {
            return member;
        } else if (request.generationId() != group.generationId()) {
            return GroupError.ILLEGAL_GENERATION;
        } else if (inconsistent(request.protocolType(), group.protocolType())
                || inconsistent(request.protocolName(), group.protocolName())) {
            return GroupError.INCONSISTENT_GROUP_PROTOCOL;
        }
        return GroupError.NONE;
    }

    private static boolean inconsistent(String requested, String actual) {
        return requested != null && actual != null && !requested.equals(actual);
    }

    /** Keeps the member's session alive; tells it to rejoin while the group prepares a rebalance. */
    GroupError heartbeat(ClassicGroup group, HeartbeatRequest request) {
        GroupError error = validateMemberOfGeneration(
                group, request.memberId(), request.groupInstanceId(), request.generationId());
        if (error != GroupError.NONE) {
            return error;
        }
        GroupMember member = group.member(request.memberId());
        return switch (group.state()) {
            case PREPARING_REBALANCE -> {
                rebalance.scheduleSessionTimeout(group, member, member.sessionTimeoutMs());
                yield GroupError.REBALANCE_IN_PROGRESS;
            }
            case COMPLETING_REBALANCE, STABLE -> {
                // Consumers heartbeat between their JoinGroup and SyncGroup answers: that is a normal heartbeat.
                rebalance.scheduleSessionTimeout(group, member, member.sessionTimeoutMs());
                yield GroupError.NONE;
            }
            default -> GroupError.UNKNOWN_MEMBER_ID;
        };
    }

    /**
     * TxnOffsetCommit's member check, as Kafka's classic groups make it for transactional commits: a
     * producer outside group management (no generation, member or instance id) always passes; otherwise
     * the member must be of the current generation. Unlike OffsetCommit it neither refuses a commit
     * during a rebalance nor extends the member's session.
     */
    GroupError validateTransactionalOffsetCommit(
            ClassicGroup group, String memberId, String groupInstanceId, int generationId) {
        if (group.isIn(GroupState.DEAD)) {
            return GroupError.COORDINATOR_NOT_AVAILABLE;
        }
        if (generationId < 0 && (memberId == null || memberId.isEmpty()) && groupInstanceId == null) {
            return GroupError.NONE;
        }
        return validateMemberOfGeneration(group, memberId, groupInstanceId, generationId);
    }

    private static GroupError validateMemberOfGeneration(
            ClassicGroup group, String memberId, String groupInstanceId, int generationId) {
        if (group.isIn(GroupState.DEAD)) {
            return GroupError.COORDINATOR_NOT_AVAILABLE;
        }
        GroupError member = group.validateMember(memberId, groupInstanceId);
        if (member != GroupError.NONE) {
            return member;
        }
        return generationId == group.generationId() ? GroupError.NONE : GroupError.ILLEGAL_GENERATION;
    }

    /**
     * Removes each named member; a static member may be named by instance id alone (administrative
     * removal). The group then rebalances, or finishes the join phase it is in.
     */
    LeaveResponse leave(ClassicGroup group, LeaveRequest request) {
        if (group.isIn(GroupState.DEAD)) {
            return new LeaveResponse(GroupError.COORDINATOR_NOT_AVAILABLE, List.of());
        }
        List<LeaveResponse.Left> outcomes = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        for (LeaveRequest.Leaving leaving : request.members()) {
            GroupError error = leaveOne(group, leaving, removed);
            outcomes.add(new LeaveResponse.Left(leaving.memberId(), leaving.groupInstanceId(), error));
        }
        if (!removed.isEmpty()) {
            String reason = "members " + removed + " left";
            switch (group.state()) {
                case STABLE, COMPLETING_REBALANCE -> rebalance.prepareOrCompleteJoin(group, reason);
                case PREPARING_REBALANCE -> rebalance.maybeCompleteJoinPhase(group);
                default -> {}
            }
        }
        return new LeaveResponse(GroupError.NONE, outcomes);
    }

    private GroupError leaveOne(ClassicGroup group, LeaveRequest.Leaving leaving, List<String> removed) {
        String memberId = leaving.memberId();
        String instanceId = leaving.groupInstanceId();
        if (memberId.isEmpty()) {
            String staticMemberId = instanceId == null ? null : group.staticMemberId(instanceId);
            if (staticMemberId == null) {
                return GroupError.UNKNOWN_MEMBER_ID;
            }
            memberId = staticMemberId;
        } else if (!group.isPendingMember(memberId)) {
            GroupError error = group.validateMember(memberId, instanceId);
            if (error != GroupError.NONE) {
                return error;
            }
        }
        LOGGER.info(
                "Member leaves group={} member={} instance={} reason={}",
                group.groupId(),
                memberId,
                instanceId,
                Objects.requireNonNullElse(leaving.reason(), "not provided"));
        group.remove(memberId);
        group.timeouts().cancel(GroupTimeouts.session(memberId));
        removed.add(memberId);
        return GroupError.NONE;
    }

    /**
     * Whether an OffsetCommit may be applied. Members must be in the current generation, and not
     * between their join and sync; commits from outside the group (generation below zero, no member
     * id) only while it is Empty. A member's commit also counts as a heartbeat.
     */
    GroupError validateOffsetCommit(ClassicGroup group, String memberId, String groupInstanceId, int generationId) {
        if (group.isIn(GroupState.DEAD)) {
            return GroupError.COORDINATOR_NOT_AVAILABLE;
        }
        if (generationId < 0 && group.isIn(GroupState.EMPTY)) {
            return GroupError.NONE;
        }
        if (generationId < 0 && memberId.isEmpty() && groupInstanceId == null) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        GroupError error = validateMemberOfGeneration(group, memberId, groupInstanceId, generationId);
        if (error != GroupError.NONE) {
            return error;
        } else if (group.isIn(GroupState.COMPLETING_REBALANCE)) {
            return GroupError.REBALANCE_IN_PROGRESS;
        }
        GroupMember member = group.member(memberId);
        rebalance.scheduleSessionTimeout(group, member, member.sessionTimeoutMs());
        return GroupError.NONE;
    }
}
