package io.floe.agent.group;

import io.floe.core.group.GroupMembership;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One classic group's state: members, generation, selected protocol, leader, and the members that
 * are still to join or sync. Every operation runs under the group's lock ({@link #run}, {@link #call});
 * the answers it produces are completed after the lock is released, so client callbacks never run
 * while the group is locked.
 */
final class ClassicGroup {

    private final String groupId;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Runnable> outbox = new ArrayList<>();
    private final GroupTimeouts timeouts;
    private final Map<String, GroupMember> members = new LinkedHashMap<>();
    private final Map<String, String> staticMembers = new HashMap<>();
    private final Set<String> pendingMembers = new HashSet<>();
    private final Set<String> pendingSyncMembers = new HashSet<>();
    /** Read without the lock by metrics and listings. */
    private volatile GroupState state = GroupState.EMPTY;

    private GroupState previousState;
    private long stateSinceMs;
    private int generationId;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private boolean newMemberAdded;

    ClassicGroup(String groupId, TimerService timers, long nowMs) {
        this.groupId = groupId;
        this.timeouts = new GroupTimeouts(timers, this::run);
        this.stateSinceMs = nowMs;
    }

    // ----- locking

    void run(Runnable operation) {
        call(() -> {
            operation.run();
            return null;
        });
    }

    <T> T call(Supplier<T> operation) {
        List<Runnable> deliveries = List.of();
        T result;
        lock.lock();
        try {
            result = operation.get();
            if (lock.getHoldCount() == 1 && !outbox.isEmpty()) {
                deliveries = new ArrayList<>(outbox);
                outbox.clear();
            }
        } finally {
            lock.unlock();
        }
        deliveries.forEach(Runnable::run);
        return result;
    }

    /** Completes {@code future} once the lock is released. */
    <T> void complete(CompletableFuture<T> future, T value) {
        if (future != null) {
            outbox.add(() -> future.complete(value));
        }
    }

    /** Answers the member's pending JoinGroup, if any; true if there was one. */
    boolean completeJoin(GroupMember member, JoinResponse response) {
        CompletableFuture<JoinResponse> future = member.awaitJoin(null);
        complete(future, response);
        return future != null;
    }

    /** Answers the member's pending SyncGroup, if any; true if there was one. */
    boolean completeSync(GroupMember member, SyncResponse response) {
        CompletableFuture<SyncResponse> future = member.awaitSync(null);
        complete(future, response);
        return future != null;
    }

    // ----- state

    String groupId() {
        return groupId;
    }

    GroupTimeouts timeouts() {
        return timeouts;
    }

    GroupState state() {
        return state;
    }

    boolean isIn(GroupState candidate) {
        return state == candidate;
    }

    GroupState previousState() {
        return previousState;
    }

    long stateSinceMs() {
        return stateSinceMs;
    }

    void transitionTo(GroupState next, long nowMs) {
        previousState = state;
        state = next;
        stateSinceMs = nowMs;
    }

    /** A rebalance may start from these states; in PreparingRebalance one is already running. */
    boolean canRebalance() {
        return state == GroupState.STABLE || state == GroupState.COMPLETING_REBALANCE || state == GroupState.EMPTY;
    }

    int generationId() {
        return generationId;
    }

    String protocolType() {
        return protocolType;
    }

    String protocolName() {
        return protocolName;
    }

    String leaderId() {
        return leaderId;
    }

    boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    boolean newMemberAdded() {
        return newMemberAdded;
    }

    void newMemberAdded(boolean value) {
        newMemberAdded = value;
    }

    /**
     * An Empty group takes the generation, protocol and members an earlier coordinator recorded, and is
     * Stable: its members think they are in that generation. Their protocol metadata was not recorded,
     * so each supports the selected protocol only, with no metadata, until it rejoins.
     */
    void load(GroupMembership recorded, long nowMs) {
        generationId = recorded.generationId();
        protocolName = recorded.protocolName();
        List<Protocol> selected = List.of(new Protocol(protocolName, SyncResponse.NO_ASSIGNMENT));
        for (GroupMembership.Member loaded : recorded.members()) {
            GroupMember member = new GroupMember(
                    loaded.memberId(),
                    loaded.groupInstanceId(),
                    loaded.clientId(),
                    loaded.clientHost(),
                    recorded.protocolType(),
                    loaded.rebalanceTimeoutMs(),
                    loaded.sessionTimeoutMs(),
                    selected);
            member.loaded(true);
            add(member, null);
        }
        transitionTo(GroupState.STABLE, nowMs);
    }

    /**
     * Starts the next generation: with members, selects the protocol and waits for their syncs;
     * without, the group is Empty.
     */
    void initNextGeneration(long nowMs) {
        generationId++;
        pendingSyncMembers.clear();
        if (members.isEmpty()) {
            protocolName = null;
            transitionTo(GroupState.EMPTY, nowMs);
        } else {
            protocolName = selectProtocol();
            transitionTo(GroupState.COMPLETING_REBALANCE, nowMs);
        }
    }

    // ----- members

    Collection<GroupMember> members() {
        return members.values();
    }

    int size() {
        return members.size();
    }

    boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    GroupMember member(String memberId) {
        return members.get(memberId);
    }

    String staticMemberId(String groupInstanceId) {
        return staticMembers.get(groupInstanceId);
    }

    boolean isPendingMember(String memberId) {
        return pendingMembers.contains(memberId);
    }

    void addPendingMember(String memberId) {
        pendingMembers.add(memberId);
    }

    boolean hasPendingMembers() {
        return !pendingMembers.isEmpty();
    }

    /** Adds a member that waits for the join phase's end; the first member sets the protocol type and leads. */
    void add(GroupMember member, CompletableFuture<JoinResponse> joinFuture) {
        if (members.isEmpty()) {
            protocolType = member.protocolType();
        }
        if (member.isStatic()) {
            staticMembers.put(member.groupInstanceId(), member.memberId());
        }
        if (leaderId == null) {
            leaderId = member.memberId();
        }
        pendingMembers.remove(member.memberId());
        members.put(member.memberId(), member);
        member.awaitJoin(joinFuture);
    }

    /**
     * Removes a member (or pending member). Answers anything it still waits for with
     * UNKNOWN_MEMBER_ID, so no request is left hanging; the next member in join order leads if it led.
     */
    void remove(String memberId) {
        pendingMembers.remove(memberId);
        pendingSyncMembers.remove(memberId);
        GroupMember removed = members.remove(memberId);
        if (removed == null) {
            return;
        }
        completeJoin(removed, JoinResponse.failed(GroupError.UNKNOWN_MEMBER_ID, ""));
        completeSync(removed, SyncResponse.failed(GroupError.UNKNOWN_MEMBER_ID));
        if (removed.isStatic()) {
            staticMembers.remove(removed.groupInstanceId(), memberId);
        }
        if (isLeader(memberId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /**
     * Gives a static member a new member id. Whoever still waits under the old id is fenced: it is
     * a duplicate of the instance that just joined.
     */
    GroupMember replaceStaticMember(String groupInstanceId, String oldMemberId, String newMemberId) {
        GroupMember old = members.remove(oldMemberId);
        if (old == null) {
            throw new IllegalStateException("cannot replace unknown member " + oldMemberId + " of group " + groupId);
        }
        completeJoin(old, JoinResponse.failed(GroupError.FENCED_INSTANCE_ID, oldMemberId));
        completeSync(old, SyncResponse.failed(GroupError.FENCED_INSTANCE_ID));
        pendingSyncMembers.remove(oldMemberId);
        GroupMember replacement = old.withId(newMemberId);
        members.put(newMemberId, replacement);
        staticMembers.put(groupInstanceId, newMemberId);
        if (isLeader(oldMemberId)) {
            leaderId = newMemberId;
        }
        return replacement;
    }

    /** Records a member's new protocols and timeouts and the JoinGroup it now waits on. */
    void updateMember(GroupMember member, JoinRequest request, CompletableFuture<JoinResponse> joinFuture) {
        member.update(request.protocols(), request.rebalanceTimeoutMs(), request.sessionTimeoutMs());
        CompletableFuture<JoinResponse> replaced = member.awaitJoin(joinFuture);
        // A client waits on its latest JoinGroup only; answer the older one so it does not hang.
        complete(replaced, JoinResponse.failed(GroupError.REBALANCE_IN_PROGRESS, member.memberId()));
    }

    /**
     * UNKNOWN_MEMBER_ID when the member is not in the group, FENCED_INSTANCE_ID when its instance id
     * now belongs to another member id, NONE otherwise.
     */
    GroupError validateMember(String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String current = staticMembers.get(groupInstanceId);
            if (current == null) {
                return GroupError.UNKNOWN_MEMBER_ID;
            } else if (!current.equals(memberId)) {
                return GroupError.FENCED_INSTANCE_ID;
            }
        }
        return members.containsKey(memberId) ? GroupError.NONE : GroupError.UNKNOWN_MEMBER_ID;
    }

    int awaitingJoinCount() {
        return (int)
                members.values().stream().filter(GroupMember::isAwaitingJoin).count();
    }

    boolean hasAllMembersJoined() {
        return awaitingJoinCount() == members.size() && pendingMembers.isEmpty();
    }

    /**
     * Makes sure the leader is a member that rejoined; false when no member rejoined (or there are
     * none), in which case the join phase cannot complete yet.
     */
    boolean maybeElectJoinedLeader() {
        if (leaderId == null) {
            return false;
        }
        if (members.get(leaderId).isAwaitingJoin()) {
            return true;
        }
        for (GroupMember member : members.values()) {
            if (member.isAwaitingJoin()) {
                leaderId = member.memberId();
                return true;
            }
        }
        return false;
    }

    /** The longest rebalance timeout any member asked for. */
    int rebalanceTimeoutMs() {
        return members.values().stream()
                .mapToInt(GroupMember::rebalanceTimeoutMs)
                .max()
                .orElse(0);
    }

    // ----- protocols

    /**
     * Whether a member with these protocols may join: an Empty group takes any non-empty type and
     * protocol list; otherwise the type must match and one protocol must be supported by every member,
     * which any protocol is in a join phase that all its members left (as in Kafka).
     */
    boolean supportsProtocols(String memberProtocolType, List<Protocol> memberProtocols) {
        if (state == GroupState.EMPTY) {
            return !memberProtocolType.isEmpty() && !memberProtocols.isEmpty();
        }
        if (!memberProtocolType.equals(protocolType)) {
            return false;
        }
        if (members.isEmpty()) {
            return !memberProtocols.isEmpty();
        }
        Set<String> common = commonProtocols();
        return memberProtocols.stream().anyMatch(protocol -> common.contains(protocol.name()));
    }

    /** The protocol most members prefer among those every member supports. */
    String selectProtocol() {
        Set<String> candidates = commonProtocols();
        Map<String, Long> votes = members.values().stream()
                .collect(Collectors.groupingBy(
                        member -> member.vote(candidates), LinkedHashMap::new, Collectors.counting()));
        return votes.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey)
                .orElseThrow(() -> new IllegalStateException("group " + groupId + " has no members to vote"));
    }

    private Set<String> commonProtocols() {
        Set<String> common = null;
        for (GroupMember member : members.values()) {
            Set<String> names = member.protocols().stream().map(Protocol::name).collect(Collectors.toSet());
            if (common == null) {
                common = names;
            } else {
                common.retainAll(names);
            }
        }
        return common == null ? Set.of() : common;
    }

    /** Every member with its metadata for the selected protocol: the leader's view in its JoinGroup answer. */
    List<JoinedMember> joinedMembers() {
        return members.values().stream()
                .map(member ->
                        new JoinedMember(member.memberId(), member.groupInstanceId(), member.metadata(protocolName)))
                .toList();
    }

    // ----- sync

    void addPendingSyncMember(String memberId) {
        pendingSyncMembers.add(memberId);
    }

    void removePendingSyncMember(String memberId) {
        pendingSyncMembers.remove(memberId);
    }

    Set<String> pendingSyncMembers() {
        return Set.copyOf(pendingSyncMembers);
    }

    void clearPendingSyncMembers() {
        pendingSyncMembers.clear();
    }
}
