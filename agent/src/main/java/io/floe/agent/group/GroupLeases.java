package io.floe.agent.group;

import io.floe.core.group.GroupMembership;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.Leases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator leases this agent holds, one per group it coordinates (DESIGN §8, fencing of
 * coordinators), and the members recorded with them. The cluster view only routes a request here; a
 * group's state in memory is trusted only while its lease is valid, and its writes are made only at
 * the lease's epoch (the store checks it in the write's transaction). A lease is taken by the first
 * request of the group, renewed every {@link #RENEW_INTERVAL}, and given up when the view sends the
 * group elsewhere or the group has been idle for {@link #IDLE}. Whenever a term ends (the lease was
 * lost, ran out, or its epoch moved) the coordinator forgets the group.
 *
 * <p>The members are recorded with the lease before any of them learns it is in a generation
 * ({@link #recorded}), and again within a renewal interval of any other change, so the next term
 * starts from the earlier term's members ({@code takeOver}): a classic group is loaded and rebalances
 * as soon as they have all rejoined, left or timed out; consumer-protocol members are waited for until
 * each has rejoined or left. Only when the earlier term recorded nothing (an agent of an earlier
 * version) does no generation start before its members' sessions ran out
 * ({@link CoordinatorLease#priorMembersUntil()}).
 *
 * <p>Blocking store calls run on {@code storeWork}; {@link #valid} never blocks. Thread-safe.
 */
final class GroupLeases {

    static final Duration TTL = Duration.ofSeconds(6);
    static final Duration RENEW_INTERVAL = Duration.ofSeconds(1);
    /**
     * A lease is trusted locally until this long before it runs out: room for clock skew between
     * agents and for a request checked just before the end.
     */
    static final Duration MARGIN = Duration.ofSeconds(1);
    /** A lease of a group without members and without requests for this long is given up. */
    static final Duration IDLE = Duration.ofSeconds(30);

    private static final Logger LOGGER = LoggerFactory.getLogger(GroupLeases.class);

    private final Leases store;
    private final String owner;
    private final Clock clock;
    private final TimerService timers;
    private final Executor storeWork;
    private final Predicate<String> routedHere;
    private final GroupMemory groups;
    private final GroupMetrics metrics;

    private final ConcurrentMap<String, HeldLease> held = new ConcurrentHashMap<>();
    /** Set after a term ended here: no generation before then, whatever the next lease says. */
    private final ConcurrentMap<String, Instant> localGrace = new ConcurrentHashMap<>();

    private volatile boolean renewing;
    private volatile TimerService.Timeout renewal;
    private volatile boolean closed;

    GroupLeases(
            Leases store,
            String owner,
            Clock clock,
            TimerService timers,
            Executor storeWork,
            Predicate<String> routedHere,
            GroupMemory groups,
            GroupMetrics metrics) {
        this.store = store;
        this.owner = owner;
        this.clock = clock;
        this.timers = timers;
        this.storeWork = storeWork;
        this.routedHere = routedHere;
        this.groups = groups;
        this.metrics = metrics;
    }

    /** What the leases need of the groups in memory. */
    interface GroupMemory {

        /** Forgets a group whose term ended; returns its members' longest session timeout (zero without members). */
        Duration forget(String groupId);

        /** The longest session timeout of the group's members in memory (zero without members). */
        Duration longestSession(String groupId);

        /** The group's members in memory now, as they are recorded. */
        GroupMembership membership(String groupId);

        /** Takes a group over from what its earlier term recorded; returns the members still to wait for. */
        Set<String> takeOver(String groupId, GroupMembership recorded);
    }

    /** What a request that may start a generation (a join) learns of the group's lease. */
    sealed interface ForJoin {
        record Held(CoordinatorLease lease) implements ForJoin {}

        /** Another agent holds the lease: the client must look the coordinator up again. */
        record NotCoordinator() implements ForJoin {}

        /** Members of an earlier term may still own partitions until {@code until}: the client retries. */
        record Loading(Instant until) implements ForJoin {}
    }

    /** The lease, when this agent holds it and it is still trusted now; never blocks. */
    Optional<CoordinatorLease> valid(String groupId) {
        HeldLease current = held.get(groupId);
        Instant now = clock.instant();
        if (current == null || !now.isBefore(current.validUntil())) {
            return Optional.empty();
        }
        held.computeIfPresent(
                groupId, (id, h) -> h.lease().epoch() == current.lease().epoch() ? h.used(now) : h);
        return Optional.of(current.lease());
    }

    /**
     * For a request of a member between joins (SyncGroup, Heartbeat, LeaveGroup): whether this agent
     * coordinates the group, the lease taken in the store (on {@code storeWork}) when it is not valid
     * here, which takes the group over from its earlier term. Completes at once when the lease is valid;
     * fails when the store does.
     */
    CompletableFuture<Boolean> forMember(String groupId) {
        if (valid(groupId).isPresent()) {
            return CompletableFuture.completedFuture(true);
        }
        return onStoreWork(
                () -> acquire(groupId, groups.longestSession(groupId)).isPresent());
    }

    /**
     * For a join by {@code memberId} (empty for a new member): the lease (taken in the store when it is
     * not valid here, on {@code storeWork}), and whether a generation may start now. Completes at once
     * when the lease is valid.
     */
    CompletableFuture<ForJoin> forJoin(String groupId, String memberId, Duration joinerSessionTimeout) {
        Optional<CoordinatorLease> lease = valid(groupId);
        if (lease.isPresent()) {
            return CompletableFuture.completedFuture(joinable(groupId, memberId));
        }
        return onStoreWork(() -> {
            // The lease records the longest session of the group's members, the joiner's included.
            Duration members = groups.longestSession(groupId);
            Optional<CoordinatorLease> taken =
                    acquire(groupId, members.compareTo(joinerSessionTimeout) > 0 ? members : joinerSessionTimeout);
            return taken.isEmpty() ? new ForJoin.NotCoordinator() : joinable(groupId, memberId);
        });
    }

    /** A member of an earlier term left the group (it sent its leave here): it is waited for no more. */
    void left(String groupId, String memberId) {
        held.computeIfPresent(groupId, (id, h) -> h.seen(memberId));
    }

    /**
     * Until when members of an earlier term may own partitions of the group while this agent has not
     * taken them over (they were not recorded, or are consumer-protocol members yet to rejoin); empty
     * when no such member may remain, or this agent does not coordinate the group.
     */
    Optional<Instant> earlierMembersUntil(String groupId) {
        HeldLease current = held.get(groupId);
        return current == null || !clock.instant().isBefore(current.generationsFrom())
                ? Optional.empty()
                : Optional.of(current.generationsFrom());
    }

    /** Whether {@code memberId} is a consumer-protocol member of an earlier term that has not rejoined here yet. */
    boolean awaits(String groupId, String memberId) {
        HeldLease current = held.get(groupId);
        return current != null && current.awaitingAt(clock.instant()).awaited().contains(memberId);
    }

    /**
     * Completes once the group's recorded membership covers what a JoinGroup answer is about to tell a
     * member ({@code covers}): at once when it does already, else after recording the members in memory
     * now (on {@code storeWork}). Completes with false when this agent no longer holds the lease (the
     * answer must not be sent); fails when the store does.
     */
    CompletableFuture<Boolean> recorded(String groupId, Predicate<GroupMembership> covers) {
        HeldLease current = held.get(groupId);
        if (current != null && current.recorded() != null && covers.test(current.recorded())) {
            return CompletableFuture.completedFuture(true);
        }
        return onStoreWork(() -> record(groupId, covers));
    }

    /** {@code work} on the store's thread; failed, not thrown, when that is stopping. */
    private <T> CompletableFuture<T> onStoreWork(Supplier<T> work) {
        try {
            return CompletableFuture.supplyAsync(work, storeWork);
        } catch (RejectedExecutionException stopping) {
            return CompletableFuture.failedFuture(stopping);
        }
    }

    /**
     * Blocking: records the members in memory now unless the recorded membership covers {@code covers}
     * already; false when this agent does not hold the lease (any more).
     */
    synchronized boolean record(String groupId, Predicate<GroupMembership> covers) {
        HeldLease current = held.get(groupId);
        if (current == null) {
            return false;
        }
        if (current.recorded() != null && covers.test(current.recorded())) {
            return true;
        }
        return recordNow(groupId, current, current.toRecord(groups.membership(groupId)));
    }

    /** Under this object's lock: writes {@code members} at the lease's epoch; false (and the term ends) when fenced. */
    private boolean recordNow(String groupId, HeldLease current, GroupMembership members) {
        if (!store.recordMembers(current.lease(), members)) {
            metrics.fenced("members");
            endTerm(groupId, "recording its members at epoch " + current.lease().epoch() + " was refused");
            return false;
        }
        held.computeIfPresent(
                groupId, (id, h) -> h.lease().epoch() == current.lease().epoch() ? h.recording(members) : h);
        LOGGER.debug(
                "Recorded members group={} epoch={} generation={} members={}",
                groupId,
                current.lease().epoch(),
                members.generationId(),
                members.members().size());
        return true;
    }

    /** Blocking: the lease, valid, or taken now; empty while another agent holds it. */
    Optional<CoordinatorLease> validOrAcquire(String groupId) {
        Optional<CoordinatorLease> lease = valid(groupId);
        return lease.isPresent() ? lease : acquire(groupId, groups.longestSession(groupId));
    }

    /** A fenced write was refused: another agent took the group since this lease was granted. */
    void lost(CoordinatorLease lease, String write) {
        metrics.fenced(write);
        HeldLease current = held.get(lease.groupId());
        if (current != null && current.lease().epoch() == lease.epoch()) {
            endTerm(lease.groupId(), "a write at epoch " + lease.epoch() + " was refused");
        }
    }

    /** Whether a generation may start now; a join by an awaited member of an earlier term counts it as back. */
    private ForJoin joinable(String groupId, String memberId) {
        HeldLease current = held.computeIfPresent(groupId, (id, h) -> h.seen(memberId));
        if (current == null) {
            return new ForJoin.NotCoordinator();
        }
        Instant from = current.generationsFrom();
        return clock.instant().isBefore(from) ? new ForJoin.Loading(from) : new ForJoin.Held(current.lease());
    }

    /** Takes or renews the lease in the store; a new epoch means a new term, so the group's memory goes. */
    private synchronized Optional<CoordinatorLease> acquire(String groupId, Duration members) {
        Instant start = clock.instant();
        Optional<CoordinatorLease> granted = store.acquireCoordinator(groupId, owner, start, TTL, members);
        HeldLease previous = held.get(groupId);
        if (granted.isEmpty()) {
            if (previous != null) {
                endTerm(groupId, "another agent holds its lease");
            }
            return granted;
        }
        CoordinatorLease lease = granted.get();
        Instant validUntil = start.plus(TTL).minus(MARGIN);
        if (previous != null && previous.lease().epoch() == lease.epoch()) {
            held.put(groupId, previous.renewed(lease, validUntil));
            return granted;
        }
        if (previous != null) {
            endTerm(groupId, "its lease moved from epoch " + previous.lease().epoch() + " to " + lease.epoch());
        }
        held.put(groupId, startTerm(groupId, lease, start, validUntil));
        scheduleRenewal();
        return granted;
    }

    /**
     * A new term: the group is taken over from the membership its earlier term recorded, if it did;
     * otherwise its unknown members are waited out (and, after a term of this agent's own, its local
     * grace).
     */
    private HeldLease startTerm(String groupId, CoordinatorLease lease, Instant start, Instant validUntil) {
        Optional<GroupMembership> recorded = store.recordedMembers(lease);
        Instant unknownMembersUntil = lease.priorMembersUntil();
        Instant generationsFrom = unknownMembersUntil;
        Set<String> awaited = Set.of();
        if (recorded.isPresent()) {
            awaited = groups.takeOver(groupId, recorded.get());
            Instant awaitedUntil = start.plusMillis(recorded.get().longestSessionMs());
            if (!awaited.isEmpty() && awaitedUntil.isAfter(generationsFrom)) {
                generationsFrom = awaitedUntil;
            }
        } else {
            Instant grace = localGrace.get(groupId);
            if (grace != null && grace.isAfter(generationsFrom)) {
                generationsFrom = grace;
                unknownMembersUntil = grace;
            }
        }
        boolean waits = start.isBefore(unknownMembersUntil);
        metrics.termStarted(recorded.isPresent() ? "recorded" : waits ? "waited" : "none");
        if (recorded.isEmpty() && waits) {
            LOGGER.warn(
                    "Group {} moved here with no record of its members (an earlier agent version coordinated it):"
                            + " no generation starts before {}, when their sessions have run out",
                    groupId,
                    unknownMembersUntil);
        }
        LOGGER.info(
                "Coordinating group group={} epoch={} recordedMembers={} awaited={} generationsFrom={}",
                groupId,
                lease.epoch(),
                recorded.map(members -> members.members().size()).orElse(-1),
                awaited.size(),
                generationsFrom);
        return new HeldLease(
                lease, validUntil, generationsFrom, start, recorded.orElse(null), awaited, unknownMembersUntil);
    }

    /** Forgets the group and its lease here; the store's lease runs out or was taken already. */
    private void endTerm(String groupId, String why) {
        HeldLease previous = held.remove(groupId);
        Duration members = groups.forget(groupId);
        if (previous != null || !members.isZero()) {
            localGrace.merge(groupId, clock.instant().plus(members), (a, b) -> a.isAfter(b) ? a : b);
            LOGGER.info(
                    "Forgetting group group={} epoch={} reason={} graceMs={}",
                    groupId,
                    previous == null ? -1 : previous.lease().epoch(),
                    why,
                    members.toMillis());
        }
    }

    private void scheduleRenewal() {
        if (renewing || closed) {
            return;
        }
        renewing = true;
        renewal = timers.schedule(RENEW_INTERVAL.toMillis(), () -> {
            try {
                storeWork.execute(this::renewAll);
            } catch (RejectedExecutionException stopping) {
                renewing = false;
            }
        });
    }

    /** Renews every lease still routed here and in use, and gives up the others. */
    private void renewAll() {
        renewing = false;
        Instant now = clock.instant();
        for (Map.Entry<String, HeldLease> entry : List.copyOf(held.entrySet())) {
            String groupId = entry.getKey();
            Duration members = groups.longestSession(groupId);
            boolean idle =
                    members.isZero() && entry.getValue().usedAt().plus(IDLE).isBefore(now);
            try {
                if (!routedHere.test(groupId) || idle) {
                    release(groupId, entry.getValue(), idle ? "idle" : "the cluster view moved it to another agent");
                } else if (acquire(groupId, members).isPresent()) {
                    recordChanges(groupId);
                }
            } catch (RuntimeException e) {
                LOGGER.warn(
                        "Could not renew the coordinator lease group={} epoch={} validUntil={} cause={}",
                        groupId,
                        entry.getValue().lease().epoch(),
                        entry.getValue().validUntil(),
                        e.toString());
            }
        }
        localGrace.values().removeIf(until -> until.isBefore(now));
        if (!held.isEmpty()) {
            scheduleRenewal();
        }
    }

    /**
     * Records the members in memory (and the earlier term's members still awaited) when they differ from
     * the recorded ones: members left, expired or changed, or awaited ones ran out of session.
     */
    private synchronized void recordChanges(String groupId) {
        Instant now = clock.instant();
        HeldLease current = held.computeIfPresent(groupId, (id, h) -> h.awaitingAt(now));
        if (current == null) {
            return;
        }
        GroupMembership members = current.toRecord(groups.membership(groupId));
        if (!members.equals(current.recorded())) {
            recordNow(groupId, current, members);
        }
    }

    /**
     * Records the members as they are now (those that left since the last renewal go from the record, so
     * the next coordinator does not wait out their sessions), then gives the lease up.
     */
    private synchronized void release(String groupId, HeldLease current, String why) {
        if (held.get(groupId) != current) {
            return;
        }
        try {
            recordChanges(groupId);
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "Could not record the members before releasing the coordinator lease group={} cause={}",
                    groupId,
                    e.toString());
        }
        if (held.get(groupId) == null) {
            return; // fenced while recording: another agent holds the group
        }
        endTerm(groupId, why);
        store.releaseCoordinator(current.lease(), clock.instant());
    }

    /** Gives up every lease (the agent stops), so the groups' next coordinators need not wait for them to run out. */
    void close() {
        closed = true;
        TimerService.Timeout scheduled = renewal;
        if (scheduled != null) {
            scheduled.cancel();
        }
        for (Map.Entry<String, HeldLease> entry : List.copyOf(held.entrySet())) {
            try {
                release(entry.getKey(), entry.getValue(), "the agent stops");
            } catch (RuntimeException e) {
                LOGGER.warn("Could not release the coordinator lease group={} cause={}", entry.getKey(), e.toString());
            }
        }
    }
}
