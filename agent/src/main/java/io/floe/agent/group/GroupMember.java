package io.floe.agent.group;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a classic group: what it joined with, its assignment, and the JoinGroup or SyncGroup
 * answer it is waiting for. Guarded by its group's lock.
 */
final class GroupMember {

    private final String memberId;
    private final String groupInstanceId;
    private final String clientId;
    private final String clientHost;
    private final String protocolType;
    private int rebalanceTimeoutMs;
    private int sessionTimeoutMs;
    private List<Protocol> protocols;
    private byte[] assignment = SyncResponse.NO_ASSIGNMENT;
    private CompletableFuture<JoinResponse> joinFuture;
    private CompletableFuture<SyncResponse> syncFuture;
    /** Joined but not yet through a completed join phase: may be dropped while waiting. */
    private boolean isNew;
    /** Recorded by an earlier coordinator and not rejoined here: its protocol metadata is unknown. */
    private boolean loaded;

    GroupMember(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            String protocolType,
            int rebalanceTimeoutMs,
            int sessionTimeoutMs,
            List<Protocol> protocols) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.protocolType = protocolType;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocols = List.copyOf(protocols);
    }

    /** The same member under a new id, as when a static member rejoins and replaces its old id. */
    GroupMember withId(String newMemberId) {
        GroupMember copy = new GroupMember(
                newMemberId,
                groupInstanceId,
                clientId,
                clientHost,
                protocolType,
                rebalanceTimeoutMs,
                sessionTimeoutMs,
                protocols);
        copy.assignment = assignment;
        copy.loaded = loaded;
        return copy;
    }

    String memberId() {
        return memberId;
    }

    String groupInstanceId() {
        return groupInstanceId;
    }

    boolean isStatic() {
        return groupInstanceId != null;
    }

    String clientId() {
        return clientId;
    }

    String clientHost() {
        return clientHost;
    }

    String protocolType() {
        return protocolType;
    }

    int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    List<Protocol> protocols() {
        return protocols;
    }

    void update(List<Protocol> newProtocols, int newRebalanceTimeoutMs, int newSessionTimeoutMs) {
        this.loaded = false;
        this.protocols = List.copyOf(newProtocols);
        this.rebalanceTimeoutMs = newRebalanceTimeoutMs;
        this.sessionTimeoutMs = newSessionTimeoutMs;
    }

    /** True when the member sent exactly these protocols, metadata included, last time. */
    boolean matches(List<Protocol> other) {
        return protocols.equals(other);
    }

    boolean supports(String protocolName) {
        return protocols.stream().anyMatch(protocol -> protocol.name().equals(protocolName));
    }

    /** The member's most preferred protocol among {@code candidates}. */
    String vote(Set<String> candidates) {
        return protocols.stream()
                .map(Protocol::name)
                .filter(candidates::contains)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("member " + memberId + " supports none of " + candidates));
    }

    /** The member's metadata for {@code protocolName}, empty if it does not support it. */
    byte[] metadata(String protocolName) {
        return protocols.stream()
                .filter(protocol -> protocol.name().equals(protocolName))
                .findFirst()
                .map(Protocol::metadata)
                .orElse(SyncResponse.NO_ASSIGNMENT);
    }

    byte[] assignment() {
        return assignment;
    }

    void assignment(byte[] newAssignment) {
        this.assignment = newAssignment;
    }

    boolean isAwaitingJoin() {
        return joinFuture != null;
    }

    boolean isAwaitingSync() {
        return syncFuture != null;
    }

    /** Sets the pending JoinGroup answer and returns the one it replaces, if any. */
    CompletableFuture<JoinResponse> awaitJoin(CompletableFuture<JoinResponse> future) {
        CompletableFuture<JoinResponse> previous = joinFuture;
        joinFuture = future;
        return previous;
    }

    /** Sets the pending SyncGroup answer and returns the one it replaces, if any. */
    CompletableFuture<SyncResponse> awaitSync(CompletableFuture<SyncResponse> future) {
        CompletableFuture<SyncResponse> previous = syncFuture;
        syncFuture = future;
        return previous;
    }

    boolean isNew() {
        return isNew;
    }

    boolean isLoaded() {
        return loaded;
    }

    void loaded(boolean value) {
        this.loaded = value;
    }

    void isNew(boolean value) {
        this.isNew = value;
    }

    /**
     * Whether a session timeout may be ignored: members waiting for a join or sync answer cannot
     * heartbeat, so they count as alive, except new members, which are dropped when they wait too long.
     */
    boolean hasSatisfiedHeartbeat() {
        return !isNew && (isAwaitingJoin() || isAwaitingSync());
    }
}
