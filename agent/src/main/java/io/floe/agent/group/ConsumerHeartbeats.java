package io.floe.agent.group;

import io.floe.agent.group.consumer.Assignment;
import io.floe.agent.group.consumer.ConsumerGroup;
import io.floe.agent.group.consumer.ConsumerMember;
import io.floe.agent.group.consumer.MemberState;
import io.floe.agent.group.consumer.PartitionAssignor;
import io.floe.agent.group.consumer.Reconciliation;
import io.floe.agent.group.consumer.TopicMetadata;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ConsumerGroupHeartbeat as Kafka's coordinator handles it: find or add the member (checking its
 * epoch), record its subscription, bump the group epoch when subscriptions or the subscribed topics
 * changed, compute a new target assignment when the group epoch is ahead of it, and move the member
 * one reconciliation step. Also leaving (epoch -1), a static member leaving for now (-2), and the
 * session and revocation timeouts that remove members. Runs under the group's lock.
 */
final class ConsumerHeartbeats {

    private static final Logger LOGGER = LoggerFactory.getLogger(ConsumerHeartbeats.class);

    private final ConsumerGroupConfig config;
    private final int maxGroupSize;
    private final Map<String, PartitionAssignor> assignors;
    private final Clock clock;
    private final GroupMetrics metrics;
    private final Supplier<UUID> memberIds;

    ConsumerHeartbeats(
            GroupCoordinatorConfig config,
            Map<String, PartitionAssignor> assignors,
            Clock clock,
            GroupMetrics metrics,
            Supplier<UUID> memberIds) {
        this.config = config.consumerGroups();
        this.maxGroupSize = config.maxGroupSize();
        this.assignors = Map.copyOf(assignors);
        this.clock = clock;
        this.metrics = metrics;
        this.memberIds = memberIds;
    }

    /** The checks Kafka makes before looking at the group; empty when the request may go on. */
    Optional<ConsumerHeartbeatResult> validate(ConsumerHeartbeat request) {
        int epoch = request.memberEpoch();
        String problem = null;
        if ((request.memberIdRequired() || epoch > 0 || epoch == ConsumerMember.LEAVE_EPOCH)
                && request.memberId().isEmpty()) {
            problem = "MemberId can't be empty.";
        } else if (request.groupId().isEmpty()) {
            problem = "GroupId can't be empty.";
        } else if ("".equals(request.instanceId())) {
            problem = "InstanceId can't be empty.";
        } else if ("".equals(request.rackId())) {
            problem = "RackId can't be empty.";
        } else if (epoch == 0) {
            problem = joinProblem(request);
        } else if (epoch == ConsumerMember.STATIC_LEAVE_EPOCH && request.instanceId() == null) {
            problem = "InstanceId can't be null.";
        } else if (epoch < ConsumerMember.STATIC_LEAVE_EPOCH) {
            problem = "MemberEpoch is invalid.";
        }
        if (problem != null) {
            return Optional.of(ConsumerHeartbeatResult.failed(GroupError.INVALID_REQUEST, problem));
        }
        String assignor = request.serverAssignor();
        if (assignor != null && !assignors.containsKey(assignor)) {
            return Optional.of(ConsumerHeartbeatResult.failed(
                    GroupError.UNSUPPORTED_ASSIGNOR,
                    "ServerAssignor "
                            + assignor + " is not supported. Supported assignors: "
                            + String.join(", ", config.assignors())
                            + "."));
        }
        return regexProblem(request.subscribedTopicRegex())
                .map(message -> ConsumerHeartbeatResult.failed(GroupError.INVALID_REGULAR_EXPRESSION, message));
    }

    private static String joinProblem(ConsumerHeartbeat request) {
        if (request.rebalanceTimeoutMs() == -1) {
            return "RebalanceTimeoutMs must be provided in first request.";
        } else if (request.ownedPartitions() == null
                || !request.ownedPartitions().isEmpty()) {
            return "TopicPartitions must be empty when (re-)joining.";
        } else if (request.subscribedTopicNames() == null && request.subscribedTopicRegex() == null) {
            return "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.";
        }
        return null;
    }

    private static Optional<String> regexProblem(String regex) {
        if (regex == null || regex.isEmpty()) {
            return Optional.empty();
        }
        try {
            Pattern.compile(regex);
            return Optional.empty();
        } catch (PatternSyntaxException e) {
            return Optional.of("SubscribedTopicRegex `" + regex + "` is not a valid regular expression: "
                    + e.getDescription() + ".");
        }
    }

    /** A validated heartbeat of a member of {@code entry}'s group. */
    ConsumerHeartbeatResult heartbeat(ConsumerGroups.Entry entry, ConsumerHeartbeat request, TopicCatalog topics) {
        ConsumerGroup group = entry.group();
        if (group.isDead()) {
            return ConsumerHeartbeatResult.failed(
                    GroupError.COORDINATOR_NOT_AVAILABLE,
                    "Group " + group.groupId() + " was just deleted or converted; look the coordinator up again.");
        }
        try {
            return request.memberEpoch() < 0 ? leave(entry, request) : join(entry, request, topics);
        } catch (Refused refused) {
            return ConsumerHeartbeatResult.failed(refused.error, refused.getMessage());
        }
    }

    private ConsumerHeartbeatResult join(ConsumerGroups.Entry entry, ConsumerHeartbeat request, TopicCatalog topics) {
        ConsumerGroup group = entry.group();
        long nowMs = clock.millis();
        String memberId = request.memberId().isEmpty() ? memberIds.get().toString() : request.memberId();
        ConsumerMember before = memberOf(entry, memberId, request, nowMs);
        ConsumerMember member = before.withSubscription(before.subscription()
                .update(
                        request.instanceId(),
                        request.rackId(),
                        request.clientId(),
                        request.clientHost(),
                        request.rebalanceTimeoutMs(),
                        request.subscribedTopicNames(),
                        request.subscribedTopicRegex(),
                        request.serverAssignor()));
        boolean bump =
                group.groupEpoch() == 0 || member.subscription().subscribesDifferentlyFrom(before.subscription());
        group.put(member, nowMs);
        bump |= refreshRegexes(group, topics, nowMs);
        bump |= group.subscribedTopics(resolve(group.subscribedTopicNames(), topics));
        if (bump) {
            group.bumpGroupEpoch(nowMs);
            metrics.consumerRebalanced();
            LOGGER.info(
                    "Bumped consumer group epoch group={} epoch={} member={}",
                    group.groupId(),
                    group.groupEpoch(),
                    memberId);
        }
        if (group.groupEpoch() > group.assignmentEpoch()) {
            PartitionAssignor assignor = assignorOf(group);
            group.assign(assignor, nowMs);
            LOGGER.info(
                    "Computed target assignment group={} epoch={} assignor={} members={} topics={}",
                    group.groupId(),
                    group.assignmentEpoch(),
                    assignor.name(),
                    group.size(),
                    group.subscribedTopics().keySet());
        }
        ConsumerMember reconciled = reconcile(entry, group.member(memberId), request.ownedPartitions(), nowMs);
        entry.timeouts()
                .schedule(
                        GroupTimeouts.session(memberId),
                        config.sessionTimeout().toMillis(),
                        () -> fence(
                                entry,
                                memberId,
                                "its session of " + config.sessionTimeout().toMillis() + " ms expired"));
        boolean changed = !reconciled.assigned().equals(before.assigned());
        return new ConsumerHeartbeatResult(
                GroupError.NONE,
                null,
                memberId,
                reconciled.epoch(),
                heartbeatIntervalMs(),
                request.isFull() || changed ? reconciled.assigned() : null);
    }

    /** The member the heartbeat is from: existing (epoch checked), new, or a static member's new incarnation. */
    private ConsumerMember memberOf(
            ConsumerGroups.Entry entry, String memberId, ConsumerHeartbeat request, long nowMs) {
        ConsumerGroup group = entry.group();
        boolean joining = request.memberEpoch() == 0;
        String instanceId = request.instanceId();
        ConsumerMember existing = group.member(memberId);
        if (instanceId == null || (joining && group.staticMember(instanceId) == null)) {
            if (existing != null) {
                checkEpoch(existing, request);
                return existing;
            } else if (!joining) {
                throw new Refused(
                        GroupError.UNKNOWN_MEMBER_ID,
                        "Member " + memberId + " is not a member of group " + group.groupId() + ".");
            }
            return newMember(group, memberId, instanceId);
        }
        ConsumerMember holder = group.staticMember(instanceId);
        if (!joining) {
            if (holder == null) {
                throw new Refused(GroupError.UNKNOWN_MEMBER_ID, "Instance id " + instanceId + " is unknown.");
            } else if (!holder.memberId().equals(memberId)) {
                throw new Refused(
                        GroupError.FENCED_INSTANCE_ID,
                        "Static member " + memberId + " with instance id " + instanceId + " was fenced by member "
                                + holder.memberId() + ".");
            }
            checkEpoch(holder, request);
            return holder;
        } else if (holder.memberId().equals(memberId)) {
            return holder;
        } else if (holder.epoch() != ConsumerMember.STATIC_LEAVE_EPOCH) {
            throw new Refused(
                    GroupError.UNRELEASED_INSTANCE_ID,
                    "Static member " + memberId + " with instance id "
                            + instanceId + " cannot join the group because the instance id is owned by "
                            + holder.memberId()
                            + " member.");
        }
        ConsumerMember replacement = holder.replacedBy(memberId);
        group.replaceStatic(holder, replacement, nowMs);
        cancelTimeouts(entry, holder.memberId());
        LOGGER.info(
                "Static member rejoins consumer group group={} instance={} old={} new={}",
                group.groupId(),
                instanceId,
                holder.memberId(),
                memberId);
        return replacement;
    }

    private ConsumerMember newMember(ConsumerGroup group, String memberId, String instanceId) {
        if (group.size() >= maxGroupSize) {
            throw new Refused(
                    GroupError.GROUP_MAX_SIZE_REACHED,
                    "The consumer group has reached its maximum capacity of " + maxGroupSize + " members.");
        }
        LOGGER.info(
                "Member joins consumer group group={} member={} instance={}", group.groupId(), memberId, instanceId);
        return ConsumerMember.joining(memberId);
    }

    /**
     * Epoch 0 rejoins (a fenced member comes back with its id, as Kafka allows since KAFKA-19233). An
     * older epoch is accepted only if it is the previous one and the member owns nothing beyond its
     * assignment: the answer that carried the new epoch may have been lost.
     */
    private static void checkEpoch(ConsumerMember member, ConsumerHeartbeat request) {
        int received = request.memberEpoch();
        if (received == 0 || received == member.epoch()) {
            return;
        }
        if (received > member.epoch()) {
            throw fenced("greater", received, member);
        }
        Assignment owned = request.ownedPartitions();
        if (received != member.previousEpoch() || owned == null || !owned.isSubsetOf(member.assigned())) {
            throw fenced("smaller", received, member);
        }
    }

    private static Refused fenced(String comparison, int received, ConsumerMember member) {
        return new Refused(
                GroupError.FENCED_MEMBER_EPOCH,
                "The consumer group member has a " + comparison
                        + " member epoch (" + received + ") than the one known by the group coordinator ("
                        + member.epoch()
                        + "). The member must abandon all its partitions and rejoin.");
    }

    /**
     * Re-reads which topics the subscription regexes match when one is new or the last reading is
     * older than the refresh interval; true if the group's subscribed topics changed.
     */
    private boolean refreshRegexes(ConsumerGroup group, TopicCatalog topics, long nowMs) {
        Set<String> regexes = group.regexes();
        boolean due = group.hasUnresolvedRegexes()
                || group.regexesResolvedAtMs()
                        <= nowMs - config.regexRefreshInterval().toMillis();
        if (regexes.isEmpty() || !due) {
            return false;
        }
        List<String> names = topics.names();
        Map<String, Set<String>> resolved = new HashMap<>();
        for (String regex : regexes) {
            Pattern pattern = Pattern.compile(regex);
            resolved.put(
                    regex,
                    names.stream()
                            .filter(name -> pattern.matcher(name).matches())
                            .collect(Collectors.toCollection(TreeSet::new)));
        }
        return group.resolvedRegexes(resolved, nowMs);
    }

    private static Map<String, TopicMetadata> resolve(Set<String> names, TopicCatalog topics) {
        Map<String, TopicMetadata> found = new HashMap<>();
        names.forEach(name -> topics.find(name).ifPresent(topic -> found.put(name, topic)));
        return found;
    }

    private PartitionAssignor assignorOf(ConsumerGroup group) {
        String preferred = group.preferredAssignor();
        return assignors.get(preferred != null ? preferred : config.defaultAssignor());
    }

    /** One reconciliation step; a member that must revoke partitions gets its rebalance timeout to do it. */
    private ConsumerMember reconcile(ConsumerGroups.Entry entry, ConsumerMember member, Assignment owned, long nowMs) {
        ConsumerGroup group = entry.group();
        ConsumerMember next = Reconciliation.next(
                member, group.assignmentEpoch(), group.targetOf(member.memberId()), group::ownerOf, owned);
        if (next.equals(member)) {
            return member;
        }
        group.put(next, nowMs);
        if (next.state() == member.state()
                && next.epoch() == member.epoch()
                && next.assigned().equals(member.assigned())
                && next.pendingRevocation().equals(member.pendingRevocation())) {
            return next; // it only reported owning partitions it had not yet: nothing moved, its deadline stays
        }
        String memberId = member.memberId();
        if (next.state() == MemberState.UNREVOKED_PARTITIONS) {
            int epoch = next.epoch();
            int timeoutMs = next.subscription().rebalanceTimeoutMs();
            entry.timeouts()
                    .schedule(
                            GroupTimeouts.revocation(memberId),
                            timeoutMs,
                            () -> revocationExpired(entry, memberId, epoch, timeoutMs));
        } else {
            entry.timeouts().cancel(GroupTimeouts.revocation(memberId));
        }
        LOGGER.debug(
                "Member reconciled group={} member={} epoch={} state={} assigned={} revoking={}",
                group.groupId(),
                memberId,
                next.epoch(),
                next.state(),
                next.assigned(),
                next.pendingRevocation());
        return next;
    }

    private void revocationExpired(ConsumerGroups.Entry entry, String memberId, int epoch, int timeoutMs) {
        ConsumerMember member = entry.group().member(memberId);
        if (member != null && member.epoch() == epoch && member.state() == MemberState.UNREVOKED_PARTITIONS) {
            fence(
                    entry,
                    memberId,
                    "it did not revoke " + member.pendingRevocation() + " within its rebalance timeout of " + timeoutMs
                            + " ms");
        }
    }

    private ConsumerHeartbeatResult leave(ConsumerGroups.Entry entry, ConsumerHeartbeat request) {
        ConsumerGroup group = entry.group();
        String memberId = request.memberId();
        String instanceId = request.instanceId();
        ConsumerMember member = instanceId == null ? group.member(memberId) : group.staticMember(instanceId);
        if (member == null) {
            throw new Refused(
                    GroupError.UNKNOWN_MEMBER_ID,
                    instanceId == null
                            ? "Member " + memberId + " is not a member of group " + group.groupId() + "."
                            : "Instance id " + instanceId + " is unknown.");
        } else if (instanceId != null && !member.memberId().equals(memberId)) {
            throw new Refused(
                    GroupError.FENCED_INSTANCE_ID,
                    "Static member " + memberId + " with instance id " + instanceId + " was fenced by member "
                            + member.memberId() + ".");
        }
        if (request.memberEpoch() == ConsumerMember.STATIC_LEAVE_EPOCH) {
            // It keeps its partitions until it comes back or its session expires: no rebalance.
            group.put(member.awayStatic(), clock.millis());
            entry.timeouts().cancel(GroupTimeouts.revocation(memberId));
            LOGGER.info(
                    "Static member left consumer group for now group={} member={} instance={}",
                    group.groupId(),
                    memberId,
                    instanceId);
            return new ConsumerHeartbeatResult(
                    GroupError.NONE, null, memberId, ConsumerMember.STATIC_LEAVE_EPOCH, 0, null);
        }
        fence(entry, memberId, "it left the group");
        return new ConsumerHeartbeatResult(GroupError.NONE, null, memberId, ConsumerMember.LEAVE_EPOCH, 0, null);
    }

    /** Removes the member and bumps the group epoch; the next heartbeat computes the new target. */
    void fence(ConsumerGroups.Entry entry, String memberId, String reason) {
        ConsumerGroup group = entry.group();
        if (!group.hasMember(memberId)) {
            return;
        }
        long nowMs = clock.millis();
        group.remove(memberId, nowMs);
        group.bumpGroupEpoch(nowMs);
        cancelTimeouts(entry, memberId);
        metrics.consumerRebalanced();
        LOGGER.info(
                "Member removed from consumer group group={} member={} epoch={} members={} reason={}",
                group.groupId(),
                memberId,
                group.groupEpoch(),
                group.size(),
                reason);
    }

    private static void cancelTimeouts(ConsumerGroups.Entry entry, String memberId) {
        entry.timeouts().cancel(GroupTimeouts.session(memberId));
        entry.timeouts().cancel(GroupTimeouts.revocation(memberId));
    }

    private int heartbeatIntervalMs() {
        return (int) config.heartbeatInterval().toMillis();
    }

    /** A refusal with Kafka's error and message; thrown only within this class, caught by {@link #heartbeat}. */
    private static final class Refused extends RuntimeException {

        private final GroupError error;

        Refused(GroupError error, String message) {
            super(Objects.requireNonNull(message), null, false, false);
            this.error = error;
        }
    }
}
