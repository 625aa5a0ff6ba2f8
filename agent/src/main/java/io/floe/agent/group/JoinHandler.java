package io.floe.agent.group;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JoinGroup, as Kafka's coordinator handles it: the member-id round trip for new dynamic members,
 * static members replacing their previous member id, and existing members rejoining (which starts
 * a rebalance unless nothing changed). Runs under the group's lock.
 */
final class JoinHandler {

    private static final Logger LOGGER = LoggerFactory.getLogger(JoinHandler.class);

    private final GroupCoordinatorConfig config;
    private final Rebalance rebalance;
    private final Supplier<UUID> ids;

    JoinHandler(GroupCoordinatorConfig config, Rebalance rebalance, Supplier<UUID> ids) {
        this.config = config;
        this.rebalance = rebalance;
        this.ids = ids;
    }

    void join(ClassicGroup group, JoinRequest request, CompletableFuture<JoinResponse> future) {
        String memberId = request.memberId();
        if (!acceptsJoiningMember(group, memberId)) {
            group.remove(memberId);
            group.timeouts().cancel(GroupTimeouts.session(memberId));
            group.complete(future, JoinResponse.failed(GroupError.GROUP_MAX_SIZE_REACHED, ""));
        } else if (group.isIn(GroupState.DEAD)) {
            // The group was just deleted: the client looks up the coordinator again and rejoins a new group.
            group.complete(future, JoinResponse.failed(GroupError.COORDINATOR_NOT_AVAILABLE, memberId));
        } else if (!group.supportsProtocols(request.protocolType(), request.protocols())) {
            group.complete(future, JoinResponse.failed(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
        } else if (memberId.isEmpty()) {
            joinNewMember(group, request, future);
        } else if (group.isPendingMember(memberId)) {
            // Only dynamic members get pending ids; an instance id here means a confused client.
            if (request.groupInstanceId() != null) {
                group.complete(future, JoinResponse.failed(GroupError.UNKNOWN_MEMBER_ID, memberId));
            } else {
                LOGGER.info(
                        "Pending member joins group={} member={} state={}",
                        group.groupId(),
                        memberId,
                        group.state().label());
                addMemberAndRebalance(group, request, memberId, future);
            }
        } else {
            joinExistingMember(group, request, future);
        }
    }

    /** Kafka's group.max.size: members already waiting in the join phase always get back in. */
    private boolean acceptsJoiningMember(ClassicGroup group, String memberId) {
        return switch (group.state()) {
            case EMPTY, DEAD -> true;
            case PREPARING_REBALANCE ->
                (group.hasMember(memberId) && group.member(memberId).isAwaitingJoin())
                        || group.awaitingJoinCount() < config.maxGroupSize();
            case COMPLETING_REBALANCE, STABLE -> group.hasMember(memberId) || group.size() < config.maxGroupSize();
        };
    }

    private void joinNewMember(ClassicGroup group, JoinRequest request, CompletableFuture<JoinResponse> future) {
        String instanceId = request.groupInstanceId();
        String newMemberId = (instanceId != null ? instanceId : request.clientId()) + "-" + ids.get();
        if (instanceId != null) {
            String existing = group.staticMemberId(instanceId);
            if (existing != null) {
                LOGGER.info(
                        "Static member rejoins with a new member id group={} instance={} old={} new={} state={}",
                        group.groupId(),
                        instanceId,
                        existing,
                        newMemberId,
                        group.state().label());
                replaceStaticMember(group, request, existing, newMemberId, future);
            } else {
                addMemberAndRebalance(group, request, newMemberId, future);
            }
        } else if (request.requireKnownMemberId()) {
            // The client retries with this id; until then it is pending and counts as not yet joined.
            group.addPendingMember(newMemberId);
            rebalance.schedulePendingMemberTimeout(group, newMemberId, request.sessionTimeoutMs());
            group.complete(future, JoinResponse.failed(GroupError.MEMBER_ID_REQUIRED, newMemberId));
        } else {
            addMemberAndRebalance(group, request, newMemberId, future);
        }
    }

    private void joinExistingMember(ClassicGroup group, JoinRequest request, CompletableFuture<JoinResponse> future) {
        String memberId = request.memberId();
        GroupError error = group.validateMember(memberId, request.groupInstanceId());
        if (error != GroupError.NONE) {
            group.complete(future, JoinResponse.failed(error, memberId));
            return;
        }
        GroupMember member = group.member(memberId);
        boolean unchanged = member.matches(request.protocols());
        switch (group.state()) {
            case PREPARING_REBALANCE -> updateMemberAndRebalance(group, member, request, future, "rejoins");
            case COMPLETING_REBALANCE -> {
                if (unchanged) {
                    // It lost its JoinGroup answer: send the current generation again.
                    List<JoinedMember> members = group.isLeader(memberId) ? group.joinedMembers() : List.of();
                    group.complete(
                            future, Rebalance.currentGeneration(group, memberId, members, group.leaderId(), false));
                } else {
                    updateMemberAndRebalance(group, member, request, future, "changed its metadata");
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !unchanged) {
                    // A rejoining leader asks for a new assignment (the topics it sees changed, for example).
                    updateMemberAndRebalance(
                            group,
                            member,
                            request,
                            future,
                            group.isLeader(memberId) ? "leader rejoins" : "changed its metadata");
                } else {
                    group.complete(
                            future, Rebalance.currentGeneration(group, memberId, List.of(), group.leaderId(), false));
                }
            }
            default -> group.complete(future, JoinResponse.failed(GroupError.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    private void addMemberAndRebalance(
            ClassicGroup group, JoinRequest request, String memberId, CompletableFuture<JoinResponse> future) {
        GroupMember member = new GroupMember(
                memberId,
                request.groupInstanceId(),
                request.clientId(),
                request.clientHost(),
                request.protocolType(),
                request.rebalanceTimeoutMs(),
                request.sessionTimeoutMs(),
                request.protocols());
        member.isNew(true);
        if (group.isIn(GroupState.PREPARING_REBALANCE) && group.previousState() == GroupState.EMPTY) {
            group.newMemberAdded(true);
        }
        group.add(member, future);
        // A new member cannot heartbeat until it has an answer: drop it if the join phase outlasts this.
        rebalance.scheduleSessionTimeout(
                group, member, config.newMemberJoinTimeout().toMillis());
        rebalance.prepareOrCompleteJoin(
                group,
                "member " + memberId + " (instance " + request.groupInstanceId() + ") joins; client reason: "
                        + request.reason());
    }

    private void updateMemberAndRebalance(
            ClassicGroup group,
            GroupMember member,
            JoinRequest request,
            CompletableFuture<JoinResponse> future,
            String what) {
        group.updateMember(member, request, future);
        rebalance.prepareOrCompleteJoin(
                group,
                "member " + member.memberId() + " " + what + " in state "
                        + group.state().label() + "; client reason: " + request.reason());
    }

    /**
     * A static member came back without its member id: it takes the new id and keeps its place. In a
     * stable group whose protocol would not change, no rebalance runs: the member keeps its
     * assignment (a v9+ leader is told to skip assigning; an older leader is shown the old leader id
     * so it acts as a follower).
     */
    private void replaceStaticMember(
            ClassicGroup group,
            JoinRequest request,
            String oldMemberId,
            String newMemberId,
            CompletableFuture<JoinResponse> future) {
        String previousLeader = group.leaderId();
        GroupMember member = group.replaceStaticMember(request.groupInstanceId(), oldMemberId, newMemberId);
        group.timeouts().cancel(GroupTimeouts.session(oldMemberId));
        rebalance.scheduleSessionTimeout(group, member, request.sessionTimeoutMs());
        group.updateMember(member, request, future);
        switch (group.state()) {
            case STABLE -> {
                if (group.selectProtocol().equals(group.protocolName())) {
                    group.completeJoin(member, staticRejoinAnswer(group, request, newMemberId, previousLeader));
                } else {
                    rebalance.prepareOrCompleteJoin(
                            group,
                            "static member " + request.groupInstanceId()
                                    + " rejoined with protocols that change the group's protocol");
                }
            }
            case COMPLETING_REBALANCE ->
                // The leader may be assigning to the old member id: assign again.
                rebalance.prepare(group, "static member " + request.groupInstanceId() + " rejoined during sync");
            default -> rebalance.maybeCompleteJoinPhase(group);
        }
    }

    private static JoinResponse staticRejoinAnswer(
            ClassicGroup group, JoinRequest request, String memberId, String previousLeader) {
        if (request.supportsSkipAssignment()) {
            boolean leader = group.isLeader(memberId);
            return Rebalance.currentGeneration(
                    group, memberId, leader ? group.joinedMembers() : List.of(), group.leaderId(), leader);
        }
        return Rebalance.currentGeneration(group, memberId, List.of(), previousLeader, false);
    }
}
