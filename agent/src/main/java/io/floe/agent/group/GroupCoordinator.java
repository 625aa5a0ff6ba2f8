package io.floe.agent.group;

import io.floe.agent.group.consumer.ConsumerGroup;
import io.floe.agent.group.consumer.ConsumerMember;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.group.GroupMembership;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.Leases;
import io.floe.core.transaction.TransactionOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's consumer group coordinator, for Kafka's classic protocol and for the consumer protocol
 * of KIP-848 ({@link #consumerHeartbeat}). Group membership lives in memory, one lock per group; a
 * group id names either a classic or a consumer group, never both. Committed offsets live in the
 * metadata store, and the members are recorded with the coordinator lease, so after a restart or a
 * move the next coordinator takes the group over ({@link GroupLoader}) and its members rejoin.
 *
 * <p>Threads: {@link #join}, {@link #sync}, {@link #heartbeat} and {@link #leave} touch memory and may
 * run on an event loop; when the group's lease must be taken, or a JoinGroup answer waits for the
 * members to be recorded, the store is asked on the lease thread and the answer follows from there.
 * JoinGroup and SyncGroup answers arrive as futures completed by a later request or a timeout.
 * {@link #consumerHeartbeat} reads topics through its catalog and may block on a cache miss or the
 * store. Every other method reads or writes the metadata store and blocks. All methods are thread-safe.
 *
 * <p>Fencing (DESIGN §8): the cluster view only routes a group's requests here; the coordinator
 * trusts its memory of a group only while it holds the group's coordinator lease ({@link GroupLeases}),
 * writes for the group (offsets, pending transactional offsets, deletions, its members) only at the
 * lease's epoch, and answers NOT_COORDINATOR when another agent holds it.
 */
public final class GroupCoordinator implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(GroupCoordinator.class);

    private final GroupCoordinatorConfig config;
    private final ConsumerOffsets store;
    private final GroupRegistry groups;
    private final ConsumerGroups consumerGroups;
    private final JoinHandler joins;
    private final MemberRequests members;
    private final OffsetOperations offsets;
    private final GroupLeases leases;
    private final UnusedLeases unusedLeases;
    private final GroupLoader loader;
    private final TransactionalCommits transactionalCommits;
    private final Predicate<String> routedHere;
    private final String owner;
    /** Groups whose offsets never expire: another part of the agent owns them (see {@link #retainOffsetsOf}). */
    private volatile Predicate<String> retained = groupId -> false;
    /** Where lease acquisitions and renewals wait on the store, when started by {@link #start}. */
    private ExecutorService leaseThread;
    /** The periodic retention sweep, when started by {@link #start}; it runs on its own thread because it blocks on the store. */
    private ScheduledFuture<?> retentionSchedule;

    private ExecutorService retentionThread;

    GroupCoordinator(
            GroupCoordinatorConfig config,
            ConsumerOffsets store,
            Leases leases,
            TimerService timers,
            Clock clock,
            MeterRegistry meters,
            Supplier<UUID> memberIds,
            String owner,
            Predicate<String> routedHere,
            Executor leaseWork) {
        this.config = config;
        this.store = store;
        this.routedHere = routedHere;
        this.owner = owner;
        GroupMetrics metrics = new GroupMetrics(meters, this::classicGroupsInMemory, this::consumerGroupsInMemory);
        Rebalance rebalance = new Rebalance(config, clock, metrics);
        this.joins = new JoinHandler(config, rebalance, memberIds);
        this.members = new MemberRequests(rebalance);
        this.offsets = new OffsetOperations(config, store, clock, members, metrics);
        this.consumerGroups = new ConsumerGroups(config, timers, clock, metrics, memberIds);
        this.groups = new GroupRegistry(consumerGroups, timers, clock);
        this.loader = new GroupLoader(groups, consumerGroups, rebalance, clock);
        this.leases = new GroupLeases(leases, owner, clock, timers, leaseWork, routedHere, new Memory(), metrics);
        this.unusedLeases = new UnusedLeases(leases, clock, metrics);
        this.transactionalCommits = new TransactionalCommits(this.leases, groups, consumerGroups, members);
    }

    /**
     * A coordinator whose timeouts run on {@code scheduler} and that sweeps expired offsets every
     * {@link GroupCoordinatorConfig#offsetsRetentionCheckInterval()}.
     */
    public static GroupCoordinator start(
            GroupCoordinatorConfig config,
            ConsumerOffsets store,
            Leases leases,
            ScheduledExecutorService scheduler,
            Clock clock,
            MeterRegistry meters,
            Concurrency concurrency,
            String agentId,
            Predicate<String> routedHere) {
        ExecutorService leaseThread = concurrency.pool("floe-group-leases", 1);
        GroupCoordinator coordinator = new GroupCoordinator(
                config,
                store,
                leases,
                TimerService.on(scheduler),
                clock,
                meters,
                concurrency::randomUuid,
                agentId,
                routedHere,
                leaseThread);
        coordinator.leaseThread = leaseThread;
        coordinator.retentionThread = concurrency.pool("floe-group-retention", 1);
        long intervalMs = config.offsetsRetentionCheckInterval().toMillis();
        coordinator.retentionSchedule = scheduler.scheduleWithFixedDelay(
                coordinator::sweepInBackground, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        return coordinator;
    }

    private void sweepInBackground() {
        try {
            retentionThread.execute(() -> {
                try {
                    expireOffsets();
                } catch (RuntimeException e) {
                    LOGGER.warn("Offset retention sweep failed; retrying next interval cause={}", e.toString());
                }
            });
        } catch (RejectedExecutionException stopping) {
            LOGGER.debug("Offset retention sweep skipped: coordinator stopping");
        }
    }

    public GroupCoordinatorConfig config() {
        return config;
    }

    // ----- membership: memory only

    /** JoinGroup; the future completes when the join phase ends (or at once with an error). */
    public CompletableFuture<JoinResponse> join(JoinRequest request) {
        CompletableFuture<JoinResponse> future = new CompletableFuture<>();
        long sessionTimeoutMs = request.sessionTimeoutMs();
        if (request.groupId().isEmpty()) {
            future.complete(JoinResponse.failed(GroupError.INVALID_GROUP_ID, request.memberId()));
        } else if (sessionTimeoutMs < config.minSessionTimeout().toMillis()
                || sessionTimeoutMs > config.maxSessionTimeout().toMillis()) {
            future.complete(JoinResponse.failed(GroupError.INVALID_SESSION_TIMEOUT, request.memberId()));
        } else {
            leases.forJoin(request.groupId(), request.memberId(), Duration.ofMillis(sessionTimeoutMs))
                    .whenComplete((lease, failure) -> {
                        if (failure != null) {
                            LOGGER.warn(
                                    "Cannot take the coordinator lease group={} cause={}",
                                    request.groupId(),
                                    failure.toString());
                            future.complete(
                                    JoinResponse.failed(GroupError.COORDINATOR_NOT_AVAILABLE, request.memberId()));
                        } else if (lease instanceof GroupLeases.ForJoin.NotCoordinator) {
                            future.complete(JoinResponse.failed(GroupError.NOT_COORDINATOR, request.memberId()));
                        } else if (lease instanceof GroupLeases.ForJoin.Loading) {
                            future.complete(
                                    JoinResponse.failed(GroupError.COORDINATOR_LOAD_IN_PROGRESS, request.memberId()));
                        } else {
                            joinCoordinated(request, future);
                        }
                    });
        }
        return future.thenCompose(response -> recordedBeforeAnswer(request.groupId(), response));
    }

    /**
     * A JoinGroup answer that puts the member in a generation is sent only once the members recorded
     * with the lease include it (DESIGN §8): the next coordinator then waits for every member that may
     * own partitions. When the lease is gone meanwhile, or the store fails, the member looks the
     * coordinator up again and rejoins.
     */
    private CompletableFuture<JoinResponse> recordedBeforeAnswer(String groupId, JoinResponse response) {
        if (response.error() != GroupError.NONE) {
            return CompletableFuture.completedFuture(response);
        }
        return leases.recorded(groupId, recorded -> GroupLoader.covers(recorded, response))
                .handle((recorded, failure) -> {
                    if (failure != null) {
                        LOGGER.warn(
                                "Cannot record the members of group={} generation={} cause={}",
                                groupId,
                                response.generationId(),
                                failure.toString());
                        return JoinResponse.failed(GroupError.COORDINATOR_NOT_AVAILABLE, response.memberId());
                    }
                    return recorded ? response : JoinResponse.failed(GroupError.NOT_COORDINATOR, response.memberId());
                });
    }

    /**
     * Runs a request of a member between joins once this agent holds the group's lease (taking it, and
     * the group with it, when it does not): NOT_COORDINATOR when another agent holds it, and
     * COORDINATOR_NOT_AVAILABLE when the store cannot be asked; both make the client look the
     * coordinator up again.
     */
    private <T> CompletableFuture<T> asMember(String groupId, Supplier<T> request, Function<GroupError, T> refused) {
        return leases.forMember(groupId).handle((coordinating, failure) -> {
            if (failure != null) {
                LOGGER.warn("Cannot take the coordinator lease group={} cause={}", groupId, failure.toString());
                return refused.apply(GroupError.COORDINATOR_NOT_AVAILABLE);
            }
            return coordinating ? request.get() : refused.apply(GroupError.NOT_COORDINATOR);
        });
    }

    /** A join of a group whose lease this agent holds, past any earlier term's members. */
    private void joinCoordinated(JoinRequest request, CompletableFuture<JoinResponse> future) {
        // Only a first join (no member id) may create the group; anyone else must rejoin from scratch.
        ClassicGroup group = request.memberId().isEmpty()
                ? groups.classicForJoin(request.groupId())
                : groups.classic(request.groupId());
        if (group == null && request.memberId().isEmpty()) {
            // A consumer-protocol group with members holds the id (Kafka without online migration).
            future.complete(JoinResponse.failed(GroupError.INCONSISTENT_GROUP_PROTOCOL, request.memberId()));
        } else if (group == null) {
            future.complete(JoinResponse.failed(GroupError.UNKNOWN_MEMBER_ID, request.memberId()));
        } else {
            group.run(() -> joins.join(group, request, future));
        }
    }

    /** SyncGroup; the future completes when the leader's assignment arrives (or at once with an error). */
    public CompletableFuture<SyncResponse> sync(SyncRequest request) {
        if (request.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(SyncResponse.failed(GroupError.INVALID_GROUP_ID));
        }
        return asMember(
                        request.groupId(),
                        () -> {
                            CompletableFuture<SyncResponse> future = new CompletableFuture<>();
                            ClassicGroup group = groups.classic(request.groupId());
                            if (group == null) {
                                future.complete(SyncResponse.failed(GroupError.UNKNOWN_MEMBER_ID));
                            } else {
                                group.run(() -> members.sync(group, request, future));
                            }
                            return future;
                        },
                        error -> CompletableFuture.completedFuture(SyncResponse.failed(error)))
                .thenCompose(Function.identity());
    }

    /** Heartbeat; completes at once unless the lease must be taken first. */
    public CompletableFuture<GroupError> heartbeat(HeartbeatRequest request) {
        if (request.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(GroupError.INVALID_GROUP_ID);
        }
        return asMember(
                request.groupId(),
                () -> {
                    ClassicGroup group = groups.classic(request.groupId());
                    return group == null
                            ? GroupError.UNKNOWN_MEMBER_ID
                            : group.call(() -> members.heartbeat(group, request));
                },
                Function.identity());
    }

    /** LeaveGroup; completes at once unless the lease must be taken first. */
    public CompletableFuture<LeaveResponse> leave(LeaveRequest request) {
        if (request.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(new LeaveResponse(GroupError.INVALID_GROUP_ID, List.of()));
        }
        return asMember(
                request.groupId(), () -> leaveCoordinated(request), error -> new LeaveResponse(error, List.of()));
    }

    private LeaveResponse leaveCoordinated(LeaveRequest request) {
        ClassicGroup group = groups.classic(request.groupId());
        if (group == null) {
            return new LeaveResponse(
                    GroupError.NONE,
                    request.members().stream()
                            .map(m -> new LeaveResponse.Left(
                                    m.memberId(), m.groupInstanceId(), GroupError.UNKNOWN_MEMBER_ID))
                            .toList());
        }
        return group.call(() -> members.leave(group, request));
    }

    /**
     * ConsumerGroupHeartbeat (KIP-848). A join (epoch 0) creates the group unless a classic group with
     * members holds the id (GROUP_ID_NOT_FOUND); an empty classic group gives the id up. Other epochs
     * of a group the coordinator does not know get UNKNOWN_MEMBER_ID, so members of a group lost in a
     * restart rejoin.
     */
    public ConsumerHeartbeatResult consumerHeartbeat(ConsumerHeartbeat request, TopicCatalog topics) {
        Optional<ConsumerHeartbeatResult> invalid = consumerGroups.validate(request);
        if (invalid.isPresent()) {
            return invalid.get();
        }
        String groupId = request.groupId();
        if (request.memberEpoch() == 0) {
            GroupLeases.ForJoin lease = leases.forJoin(
                            groupId, request.memberId(), config.consumerGroups().sessionTimeout())
                    .join();
            if (lease instanceof GroupLeases.ForJoin.NotCoordinator) {
                return ConsumerHeartbeatResult.failed(
                        GroupError.NOT_COORDINATOR,
                        "This agent does not hold the coordinator lease of group " + groupId + ".");
            } else if (lease instanceof GroupLeases.ForJoin.Loading loading) {
                return ConsumerHeartbeatResult.failed(
                        GroupError.COORDINATOR_LOAD_IN_PROGRESS,
                        "Group " + groupId
                                + " moved to this coordinator; members of its earlier coordinator may own partitions until "
                                + loading.until() + ".");
            }
        } else if (leases.validOrAcquire(groupId).isEmpty()) {
            return ConsumerHeartbeatResult.failed(
                    GroupError.NOT_COORDINATOR,
                    "This agent does not hold the coordinator lease of group " + groupId + ".");
        } else if (request.memberEpoch() == ConsumerMember.LEAVE_EPOCH) {
            leases.left(groupId, request.memberId());
        }
        ConsumerGroups.Entry entry =
                request.memberEpoch() == 0 ? groups.consumerForJoin(groupId) : consumerGroups.find(groupId);
        if (entry != null) {
            return recordedBeforeAnswer(groupId, consumerGroups.heartbeat(entry, request, topics));
        } else if (groups.classic(groupId) != null) {
            return ConsumerHeartbeatResult.failed(
                    GroupError.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a consumer group.");
        }
        return ConsumerHeartbeatResult.failed(
                GroupError.UNKNOWN_MEMBER_ID,
                "Member " + request.memberId() + " is not a member of group " + groupId + ".");
    }

    /**
     * A heartbeat answer that gives the member an epoch is sent only once the members recorded with the
     * lease include it, as for JoinGroup answers; NOT_COORDINATOR when the lease is gone meanwhile.
     */
    private ConsumerHeartbeatResult recordedBeforeAnswer(String groupId, ConsumerHeartbeatResult result) {
        if (result.error() != GroupError.NONE
                || result.memberEpoch() <= 0
                || leases.record(
                        groupId, recorded -> recorded.member(result.memberId()).isPresent())) {
            return result;
        }
        return ConsumerHeartbeatResult.failed(
                GroupError.NOT_COORDINATOR,
                "This agent no longer holds the coordinator lease of group " + groupId + ".");
    }

    /** ConsumerGroupDescribe: empty when no consumer-protocol group has this id. */
    public Optional<ConsumerGroupDescription> describeConsumerGroup(String groupId) {
        return consumerGroups.describe(groupId);
    }

    /** Which protocol the group in memory with this id uses, if there is one. */
    public Optional<GroupType> typeOf(String groupId) {
        return groups.typeOf(groupId);
    }

    // ----- offsets: blocking

    /** OffsetCommit: checks the member, then stores the offsets. Store failures throw. */
    public OffsetCommitResult commitOffsets(OffsetCommitRequest request) {
        if (request.groupId().isEmpty()) {
            return OffsetCommitResult.failed(GroupError.INVALID_GROUP_ID);
        }
        // Taking the lease ends a stale term first (its group leaves memory), so the checks below see this term only.
        Optional<CoordinatorLease> lease = leases.validOrAcquire(request.groupId());
        if (lease.isEmpty()) {
            return OffsetCommitResult.failed(GroupError.NOT_COORDINATOR);
        }
        ConsumerGroups.Entry consumer = consumerGroups.find(request.groupId());
        OffsetCommitResult result;
        if (consumer != null) {
            GroupError error = consumerGroups.validateOffsetCommit(
                    consumer,
                    request.memberId(),
                    request.generationId(),
                    request.offsets().keySet());
            result = error == GroupError.NONE ? offsets.store(request, lease.get()) : OffsetCommitResult.failed(error);
        } else {
            result = offsets.commit(groups.classic(request.groupId()), request, lease.get());
        }
        if (result.error() == GroupError.NOT_COORDINATOR) {
            leases.lost(lease.get(), "offsets");
        }
        return result;
    }

    /**
     * TxnOffsetCommit: checks the member (v3+ requests carry the consumer's group metadata; a producer
     * outside group management sends none and passes) against the group in memory, which is trusted
     * only under the group's coordinator lease, then keeps the offsets pending in the producer's
     * transaction through {@code keepPending}. The store applies that only while the lease is still
     * held ({@link io.floe.core.metadata.Transactions#commitPendingOffsets}), so a member of an earlier
     * generation served by an agent that lost the group (paused past its lease) is refused, as Kafka's
     * coordinator fences a zombie's transactional commit (KIP-447). Store failures throw.
     */
    public TransactionalCommitResult commitTransactionalOffsets(
            String groupId,
            String memberId,
            String groupInstanceId,
            int generationIdOrMemberEpoch,
            Function<CoordinatorLease, TransactionOutcome> keepPending) {
        return transactionalCommits.commit(groupId, memberId, groupInstanceId, generationIdOrMemberEpoch, keepPending);
    }

    /** TxnOffsetCommit's member check alone (for tests): see {@link TransactionalCommits#validate}. */
    GroupError validateTransactionalOffsetCommit(
            String groupId, String memberId, String groupInstanceId, int generationIdOrMemberEpoch) {
        return transactionalCommits.validate(groupId, memberId, groupInstanceId, generationIdOrMemberEpoch);
    }

    /**
     * OffsetFetch's member check for consumer-protocol groups (v9+ carries the member id and epoch):
     * UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH as Kafka; classic groups and requests without a member
     * pass.
     */
    public GroupError validateOffsetFetch(String groupId, String memberId, int memberEpoch) {
        ConsumerGroups.Entry consumer = consumerGroups.find(groupId);
        return consumer == null ? GroupError.NONE : consumerGroups.validateOffsetFetch(consumer, memberId, memberEpoch);
    }

    /** Every offset the group committed, by partition. */
    public Map<TopicPartition, CommittedOffset> committedOffsets(String groupId) {
        return store.committedOffsets(groupId);
    }

    /**
     * Every offset the group committed and the partitions whose offsets are pending in an open
     * transaction, read at one point in time (OffsetFetch with require_stable).
     */
    public FetchedOffsets fetchOffsets(String groupId) {
        return store.fetchOffsets(groupId);
    }

    /**
     * OffsetDelete. {@code subscriptions} reads the topics out of a consumer member's metadata (Kafka's
     * consumer protocol, which only the protocol layer knows); it may throw if the bytes are not that.
     */
    public OffsetDeleteResult deleteOffsets(
            String groupId, Collection<TopicPartition> partitions, Function<byte[], Set<String>> subscriptions) {
        if (groupId.isEmpty()) {
            return OffsetDeleteResult.failed(GroupError.INVALID_GROUP_ID);
        }
        Optional<CoordinatorLease> lease = leases.validOrAcquire(groupId);
        if (lease.isEmpty()) {
            return OffsetDeleteResult.failed(GroupError.NOT_COORDINATOR);
        }
        ConsumerGroups.Entry consumer = consumerGroups.find(groupId);
        OffsetDeleteResult result;
        if (consumer != null) {
            Optional<Set<String>> subscribed = consumerGroups.subscribedTopics(consumer);
            result = subscribed.isEmpty()
                    ? OffsetDeleteResult.failed(GroupError.GROUP_ID_NOT_FOUND)
                    : offsets.deleteUnsubscribed(lease.get(), partitions, subscribed);
        } else {
            result = offsets.delete(groups.classic(groupId), lease.get(), partitions, subscriptions);
        }
        if (result.error() == GroupError.NOT_COORDINATOR) {
            leases.lost(lease.get(), "deletion");
        }
        return result;
    }

    /**
     * Forgets every group's offsets of a deleted topic, so a new topic of that name starts afresh. A
     * store failure is logged, not thrown: the topic is gone either way, and retention removes the
     * offsets once their group is idle.
     */
    public void onTopicDeleted(String topic) {
        try {
            int removed = store.deleteTopicOffsets(topic);
            if (removed > 0) {
                LOGGER.info("Removed committed offsets of deleted topic topic={} offsets={}", topic, removed);
            }
        } catch (RuntimeException e) {
            LOGGER.warn("Could not remove committed offsets of deleted topic topic={} cause={}", topic, e.toString());
        }
    }

    /**
     * Keeps the offsets of the groups {@code owned} accepts from expiring, however long they go without
     * a commit: groups without members whose offsets are state someone else depends on (a Tableflow
     * change topic's progress). Asked once per such group and sweep; it must not throw.
     */
    public void retainOffsetsOf(Predicate<String> owned) {
        this.retained = Objects.requireNonNull(owned, "owned");
    }

    /**
     * Removes offsets past retention of groups without members; returns how many. Only groups routed
     * here: a group coordinated by another agent is not in this one's memory and would look idle. The
     * store checks that too, in the deletion's transaction: no group whose coordinator lease another
     * agent holds (or held within its members' sessions) loses its offsets, whatever this agent's view.
     * Never those of a group {@link #retainOffsetsOf retained}. Then the Empty groups in memory that have no offsets left are dropped: asked group by group, since
     * the groups in memory are few (an idle group gives its lease up and leaves memory) and all groups
     * with offsets are many. Last, the coordinator leases of groups nobody coordinated for a day are
     * forgotten ({@link UnusedLeases}).
     */
    public int expireOffsets() {
        Predicate<String> kept = retained;
        int expired = offsets.expire(
                owner,
                (groupId, cutoffMs) ->
                        routedHere.test(groupId) && groups.idleSince(groupId, cutoffMs) && !kept.test(groupId));
        groups.dropForgotten(groupId -> !store.committedOffsets(groupId).isEmpty());
        unusedLeases.expire();
        return expired;
    }

    // ----- administration: blocking

    /**
     * Groups in memory of both protocols, plus groups known only by their stored offsets (shown as
     * Empty classic groups), by id.
     */
    public List<GroupListing> listGroups() {
        Map<String, GroupListing> listed = new TreeMap<>();
        for (String groupId : store.offsetGroups()) {
            listed.put(groupId, new GroupListing(groupId, "", GroupState.EMPTY));
        }
        for (ClassicGroup group : groups.classicGroups()) {
            GroupListing listing = group.call(() -> new GroupListing(
                    group.groupId(), group.protocolType() == null ? "" : group.protocolType(), group.state()));
            if (!listing.state().equals(GroupState.DEAD.label())) {
                listed.put(listing.groupId(), listing);
            }
        }
        consumerGroups.list().forEach(listing -> listed.put(listing.groupId(), listing));
        return List.copyOf(listed.values());
    }

    /**
     * The classic group with its members; Dead when the coordinator knows neither members nor offsets
     * of it, and for consumer-protocol groups (which DescribeGroups does not describe, as in Kafka).
     */
    public GroupDescription describeGroup(String groupId) {
        if (consumerGroups.exists(groupId)) {
            return GroupDescription.dead(groupId);
        }
        ClassicGroup group = groups.classic(groupId);
        GroupDescription described = group == null ? GroupDescription.dead(groupId) : group.call(() -> describe(group));
        if (described.state() == GroupState.DEAD
                && !store.committedOffsets(groupId).isEmpty()) {
            return new GroupDescription(groupId, GroupState.EMPTY, "", "", List.of());
        }
        return described;
    }

    private static GroupDescription describe(ClassicGroup group) {
        boolean stable = group.isIn(GroupState.STABLE);
        List<MemberDescription> described = new ArrayList<>();
        for (GroupMember member : group.members()) {
            byte[] metadata = stable ? member.metadata(group.protocolName()) : SyncResponse.NO_ASSIGNMENT;
            described.add(new MemberDescription(
                    member.memberId(),
                    member.groupInstanceId(),
                    member.clientId(),
                    member.clientHost(),
                    metadata,
                    member.assignment()));
        }
        return new GroupDescription(
                group.groupId(),
                group.state(),
                group.protocolType() == null ? "" : group.protocolType(),
                stable ? group.protocolName() : "",
                described);
    }

    /**
     * DeleteGroups for one group: refused while it has members; otherwise the group and its offsets
     * are gone (members of a concurrent join are told to look the coordinator up again). Like a commit,
     * under the group's coordinator lease: the memory that says "no members" is this term's, and the
     * store deletes only while the lease is still held.
     */
    public GroupError deleteGroup(String groupId) {
        if (groupId.isEmpty()) {
            return GroupError.INVALID_GROUP_ID;
        }
        Optional<CoordinatorLease> lease = leases.validOrAcquire(groupId);
        if (lease.isEmpty()) {
            return GroupError.NOT_COORDINATOR;
        }
        ConsumerGroups.Entry consumer = consumerGroups.find(groupId);
        ClassicGroup group = groups.classic(groupId);
        if (consumer != null) {
            return deleteOffsetsIfDeleted(lease.get(), consumerGroups.delete(consumer));
        } else if (group == null) {
            OptionalInt removed = store.deleteGroupOffsets(lease.get());
            if (removed.isEmpty()) {
                leases.lost(lease.get(), "deletion");
                return GroupError.NOT_COORDINATOR;
            }
            return removed.getAsInt() > 0 ? GroupError.NONE : GroupError.GROUP_ID_NOT_FOUND;
        }
        GroupError error = group.call(() -> {
            if (group.isIn(GroupState.DEAD)) {
                return GroupError.GROUP_ID_NOT_FOUND;
            } else if (!group.isIn(GroupState.EMPTY)) {
                return GroupError.NON_EMPTY_GROUP;
            }
            groups.markDead(group);
            return GroupError.NONE;
        });
        return deleteOffsetsIfDeleted(lease.get(), error);
    }

    /** The group left memory ({@code error} NONE): its offsets go too, unless another agent took it meanwhile. */
    private GroupError deleteOffsetsIfDeleted(CoordinatorLease lease, GroupError error) {
        if (error != GroupError.NONE) {
            return error;
        }
        OptionalInt removed = store.deleteGroupOffsets(lease);
        if (removed.isEmpty()) {
            leases.lost(lease, "deletion");
            return GroupError.NOT_COORDINATOR;
        }
        LOGGER.info("Deleted group group={} offsets={}", lease.groupId(), removed.getAsInt());
        return GroupError.NONE;
    }

    // ----- lifecycle

    /**
     * Stops the retention sweep and all timeouts and answers every waiting JoinGroup and SyncGroup
     * with COORDINATOR_NOT_AVAILABLE. The store stays open.
     */
    @Override
    public void close() {
        if (retentionSchedule != null) {
            retentionSchedule.cancel(false);
            retentionThread.shutdownNow();
        }
        for (ClassicGroup group : groups.classicGroups()) {
            group.run(() -> {
                group.timeouts().cancelAll();
                for (GroupMember member : group.members()) {
                    group.completeJoin(
                            member, JoinResponse.failed(GroupError.COORDINATOR_NOT_AVAILABLE, member.memberId()));
                    group.completeSync(member, SyncResponse.failed(GroupError.COORDINATOR_NOT_AVAILABLE));
                }
            });
        }
        consumerGroups.close();
        leases.close();
        if (leaseThread != null) {
            leaseThread.shutdownNow();
        }
        LOGGER.info(
                "Group coordinator stopped groups={} consumerGroups={}",
                groups.classicGroups().size(),
                consumerGroups.all().size());
    }

    /**
     * The group's term ended here (its lease was lost, ran out, or moved): the group leaves memory,
     * waiting joins and syncs are told to look the coordinator up again, and its members, unknown from
     * now on, rejoin wherever it is coordinated. Returns the longest session timeout its members had.
     */
    private Duration forget(String groupId) {
        Duration longest = Duration.ZERO;
        ClassicGroup group = groups.classic(groupId);
        if (group != null) {
            longest = group.call(() -> {
                Duration members = longestSession(group);
                group.timeouts().cancelAll();
                for (GroupMember member : group.members()) {
                    group.completeJoin(member, JoinResponse.failed(GroupError.NOT_COORDINATOR, member.memberId()));
                    group.completeSync(member, SyncResponse.failed(GroupError.NOT_COORDINATOR));
                }
                if (!group.isIn(GroupState.DEAD)) {
                    groups.markDead(group);
                }
                return members;
            });
        }
        ConsumerGroups.Entry consumer = consumerGroups.find(groupId);
        if (consumer != null) {
            Duration members = consumerGroups.forget(consumer);
            longest = members.compareTo(longest) > 0 ? members : longest;
        }
        return longest;
    }

    /** The longest session timeout of the group's members in memory; zero without members. */
    private Duration longestSession(String groupId) {
        ClassicGroup group = groups.classic(groupId);
        Duration longest = group == null ? Duration.ZERO : group.call(() -> longestSession(group));
        ConsumerGroups.Entry consumer = consumerGroups.find(groupId);
        Duration members = consumer == null ? Duration.ZERO : consumerGroups.sessionTimeoutOf(consumer);
        return members.compareTo(longest) > 0 ? members : longest;
    }

    /** Under the group's lock. */
    private static Duration longestSession(ClassicGroup group) {
        long longestMs = 0;
        for (GroupMember member : group.members()) {
            longestMs = Math.max(longestMs, member.sessionTimeoutMs());
        }
        return Duration.ofMillis(longestMs);
    }

    /** The groups in memory, as the leases see them. */
    private final class Memory implements GroupLeases.GroupMemory {

        @Override
        public Duration forget(String groupId) {
            return GroupCoordinator.this.forget(groupId);
        }

        @Override
        public Duration longestSession(String groupId) {
            return GroupCoordinator.this.longestSession(groupId);
        }

        @Override
        public GroupMembership membership(String groupId) {
            return loader.membership(groupId);
        }

        @Override
        public Set<String> takeOver(String groupId, GroupMembership recorded) {
            return loader.takeOver(groupId, recorded);
        }
    }

    private Collection<ClassicGroup> classicGroupsInMemory() {
        return groups.classicGroups();
    }

    private Collection<ConsumerGroup> consumerGroupsInMemory() {
        return consumerGroups.all();
    }
}
