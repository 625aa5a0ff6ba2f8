package io.floe.agent.group;

import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.Leases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator leases this agent holds, one per group it coordinates (DESIGN §8, fencing of
 * coordinators). The cluster view only routes a request here; a group's state in memory is trusted
 * only while its lease is valid, and its offset commits are written only at the lease's epoch (the
 * store checks it in the commit's transaction). A lease is taken by the first join or commit, renewed
 * every {@link #RENEW_INTERVAL}, and given up when the view sends the group elsewhere or the group
 * has been idle for {@link #IDLE}. Whenever a term ends (the lease was lost, ran out, or its epoch
 * moved) the coordinator forgets the group, and no new generation starts before the earlier term's
 * members may still think they own partitions ({@link CoordinatorLease#priorMembersUntil()}).
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

    /** A lease held, how long it is trusted, when a generation may start, and when it was last used. */
    private record Held(CoordinatorLease lease, Instant validUntil, Instant generationsFrom, Instant usedAt) {}

    private final Leases store;
    private final String owner;
    private final Clock clock;
    private final TimerService timers;
    private final Executor storeWork;
    private final Predicate<String> routedHere;
    /** Forgets a group whose term ended, returning its members' longest session timeout (zero without members). */
    private final Function<String, Duration> forget;
    /** The longest session timeout of the group's members in memory (zero without members). */
    private final Function<String, Duration> sessionTimeout;

    private final ConcurrentMap<String, Held> held = new ConcurrentHashMap<>();
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
            Function<String, Duration> forget,
            Function<String, Duration> sessionTimeout) {
        this.store = store;
        this.owner = owner;
        this.clock = clock;
        this.timers = timers;
        this.storeWork = storeWork;
        this.routedHere = routedHere;
        this.forget = forget;
        this.sessionTimeout = sessionTimeout;
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
        Held current = held.get(groupId);
        Instant now = clock.instant();
        if (current == null || !now.isBefore(current.validUntil())) {
            return Optional.empty();
        }
        held.computeIfPresent(
                groupId,
                (id, h) -> h.lease().epoch() == current.lease().epoch()
                        ? new Held(h.lease(), h.validUntil(), h.generationsFrom(), now)
                        : h);
        return Optional.of(current.lease());
    }

    /**
     * The group's state in memory may be used only while the lease is valid: when it is not, the
     * group is forgotten (its members then rejoin, taking the lease afresh).
     */
    void requireValidOrForget(String groupId) {
        if (valid(groupId).isEmpty()) {
            endTerm(groupId, "its lease is not valid");
        }
    }

    /**
     * For a join: the lease (taken in the store when it is not valid here, on {@code storeWork}), and
     * whether a generation may start now. Completes at once when the lease is valid.
     */
    CompletableFuture<ForJoin> forJoin(String groupId, Duration joinerSessionTimeout) {
        Optional<CoordinatorLease> lease = valid(groupId);
        if (lease.isPresent()) {
            return CompletableFuture.completedFuture(joinable(groupId));
        }
        return CompletableFuture.supplyAsync(
                () -> {
                    // The lease records the longest session of the group's members, the joiner's included.
                    Duration members = sessionTimeout.apply(groupId);
                    Optional<CoordinatorLease> taken = acquire(
                            groupId, members.compareTo(joinerSessionTimeout) > 0 ? members : joinerSessionTimeout);
                    return taken.isEmpty() ? new ForJoin.NotCoordinator() : joinable(groupId);
                },
                storeWork);
    }

    /** Blocking: the lease, valid, or taken now; empty while another agent holds it. */
    Optional<CoordinatorLease> validOrAcquire(String groupId) {
        Optional<CoordinatorLease> lease = valid(groupId);
        return lease.isPresent() ? lease : acquire(groupId, sessionTimeout.apply(groupId));
    }

    /** A fenced write was refused: another agent took the group since this lease was granted. */
    void lost(CoordinatorLease lease) {
        Held current = held.get(lease.groupId());
        if (current != null && current.lease().epoch() == lease.epoch()) {
            endTerm(lease.groupId(), "a write at epoch " + lease.epoch() + " was refused");
        }
    }

    private ForJoin joinable(String groupId) {
        Held current = held.get(groupId);
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
        Held previous = held.get(groupId);
        if (granted.isEmpty()) {
            if (previous != null) {
                endTerm(groupId, "another agent holds its lease");
            }
            return granted;
        }
        CoordinatorLease lease = granted.get();
        if (previous != null && previous.lease().epoch() != lease.epoch()) {
            endTerm(groupId, "its lease moved from epoch " + previous.lease().epoch() + " to " + lease.epoch());
            previous = null;
        }
        Instant generationsFrom = lease.priorMembersUntil();
        Instant grace = localGrace.get(groupId);
        if (grace != null && grace.isAfter(generationsFrom)) {
            generationsFrom = grace;
        }
        Instant usedAt = previous == null ? start : previous.usedAt();
        held.put(groupId, new Held(lease, start.plus(TTL).minus(MARGIN), generationsFrom, usedAt));
        if (previous == null) {
            LOGGER.info(
                    "Coordinating group group={} epoch={} generationsFrom={}", groupId, lease.epoch(), generationsFrom);
            scheduleRenewal();
        }
        return granted;
    }

    /** Forgets the group and its lease here; the store's lease runs out or was taken already. */
    private void endTerm(String groupId, String why) {
        Held previous = held.remove(groupId);
        Duration members = forget.apply(groupId);
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
        for (Map.Entry<String, Held> entry : List.copyOf(held.entrySet())) {
            String groupId = entry.getKey();
            Duration members = sessionTimeout.apply(groupId);
            boolean idle =
                    members.isZero() && entry.getValue().usedAt().plus(IDLE).isBefore(now);
            try {
                if (!routedHere.test(groupId) || idle) {
                    release(groupId, entry.getValue(), idle ? "idle" : "the cluster view moved it to another agent");
                } else {
                    acquire(groupId, members);
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

    private synchronized void release(String groupId, Held current, String why) {
        if (held.get(groupId) != current) {
            return;
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
        for (Map.Entry<String, Held> entry : List.copyOf(held.entrySet())) {
            try {
                release(entry.getKey(), entry.getValue(), "the agent stops");
            } catch (RuntimeException e) {
                LOGGER.warn("Could not release the coordinator lease group={} cause={}", entry.getKey(), e.toString());
            }
        }
    }
}
