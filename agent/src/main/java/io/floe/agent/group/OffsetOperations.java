package io.floe.agent.group;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.CoordinatorLease;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committed offsets: the group checks run under the group's lock, the store work after it is
 * released, so a slow store never holds up heartbeats. Blocking: callers run these off the event loop.
 */
final class OffsetOperations {

    private static final Logger LOGGER = LoggerFactory.getLogger(OffsetOperations.class);

    /** The most groups one retention round expires (one store write each). */
    static final int EXPIRED_GROUPS_PER_ROUND = 10_000;
    /** The protocol type of Kafka consumers, whose subscriptions Floe can read. */
    static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    private final GroupCoordinatorConfig config;
    private final ConsumerOffsets store;
    private final Clock clock;
    private final MemberRequests memberRequests;
    private final GroupMetrics metrics;

    OffsetOperations(
            GroupCoordinatorConfig config,
            ConsumerOffsets store,
            Clock clock,
            MemberRequests memberRequests,
            GroupMetrics metrics) {
        this.config = config;
        this.store = store;
        this.clock = clock;
        this.memberRequests = memberRequests;
        this.metrics = metrics;
    }

    /** {@code group} is null when the coordinator has no such group in memory. */
    OffsetCommitResult commit(ClassicGroup group, OffsetCommitRequest request, CoordinatorLease lease) {
        GroupError error;
        if (group == null) {
            // Commits from outside any group create a "simple" group, which lives in the store only.
            error = request.generationId() < 0 ? GroupError.NONE : GroupError.GROUP_ID_NOT_FOUND;
        } else {
            error = group.call(() -> memberRequests.validateOffsetCommit(
                    group, request.memberId(), request.groupInstanceId(), request.generationId()));
        }
        return error == GroupError.NONE ? store(request, lease) : OffsetCommitResult.failed(error);
    }

    /**
     * Stores the offsets of a commit whose member checks passed, at the coordinator lease's epoch:
     * NOT_COORDINATOR when the store finds the lease taken by another agent.
     */
    OffsetCommitResult store(OffsetCommitRequest request, CoordinatorLease lease) {
        long now = clock.millis();
        Map<TopicPartition, GroupError> outcomes = new HashMap<>();
        Map<TopicPartition, CommittedOffset> accepted = new HashMap<>();
        request.offsets().forEach((partition, offset) -> {
            String metadata = offset.metadata() == null ? "" : offset.metadata();
            if (metadata.length() > config.offsetMetadataMaxChars()) {
                outcomes.put(partition, GroupError.OFFSET_METADATA_TOO_LARGE);
            } else {
                accepted.put(
                        partition,
                        new CommittedOffset(
                                offset.offset(),
                                Math.max(offset.leaderEpoch(), CommittedOffset.NO_LEADER_EPOCH),
                                metadata,
                                now));
                outcomes.put(partition, GroupError.NONE);
            }
        });
        if (!accepted.isEmpty() && !store.commitOffsets(lease, accepted)) {
            LOGGER.info(
                    "Offset commit fenced: another agent coordinates the group now group={} member={} epoch={}",
                    request.groupId(),
                    request.memberId(),
                    lease.epoch());
            return OffsetCommitResult.failed(GroupError.NOT_COORDINATOR);
        }
        metrics.committed(accepted.size());
        LOGGER.debug(
                "Committed offsets group={} member={} generation={} partitions={}",
                request.groupId(),
                request.memberId(),
                request.generationId(),
                accepted.size());
        return new OffsetCommitResult(GroupError.NONE, outcomes);
    }

    /**
     * Deletes offsets of partitions the group does not consume. A group with members must use the
     * consumer protocol (so its subscriptions can be read with {@code subscriptions}); its subscribed
     * topics keep their offsets.
     */
    OffsetDeleteResult delete(
            ClassicGroup group,
            CoordinatorLease lease,
            Collection<TopicPartition> partitions,
            Function<byte[], Set<String>> subscriptions) {
        DeleteCheck check;
        if (group == null) {
            check = store.committedOffsets(lease.groupId()).isEmpty()
                    ? DeleteCheck.refused(GroupError.GROUP_ID_NOT_FOUND)
                    : DeleteCheck.subscribedTo(Set.of());
        } else {
            check = group.call(() -> checkDelete(group, subscriptions));
        }
        if (check.error() != GroupError.NONE) {
            return OffsetDeleteResult.failed(check.error());
        }
        return deleteUnsubscribed(lease, partitions, check.subscribed());
    }

    /**
     * Deletes the offsets of partitions whose topics are not in {@code subscribed}; every offset is
     * kept when the subscriptions are unknown (empty). NOT_COORDINATOR when the store finds the lease
     * taken by another agent.
     */
    OffsetDeleteResult deleteUnsubscribed(
            CoordinatorLease lease, Collection<TopicPartition> partitions, Optional<Set<String>> subscribed) {
        Map<TopicPartition, GroupError> outcomes = new HashMap<>();
        for (TopicPartition partition : partitions) {
            boolean keep =
                    subscribed.map(topics -> topics.contains(partition.topic())).orElse(true);
            outcomes.put(partition, keep ? GroupError.GROUP_SUBSCRIBED_TO_TOPIC : GroupError.NONE);
        }
        List<TopicPartition> deleted = outcomes.entrySet().stream()
                .filter(outcome -> outcome.getValue() == GroupError.NONE)
                .map(Map.Entry::getKey)
                .toList();
        if (!deleted.isEmpty() && store.deleteOffsets(lease, deleted).isEmpty()) {
            LOGGER.info(
                    "Offset deletion fenced: another agent coordinates the group now group={} epoch={}",
                    lease.groupId(),
                    lease.epoch());
            return OffsetDeleteResult.failed(GroupError.NOT_COORDINATOR);
        }
        return new OffsetDeleteResult(GroupError.NONE, outcomes);
    }

    private static DeleteCheck checkDelete(ClassicGroup group, Function<byte[], Set<String>> subscriptions) {
        if (group.isIn(GroupState.DEAD)) {
            return DeleteCheck.refused(GroupError.GROUP_ID_NOT_FOUND);
        } else if (group.isIn(GroupState.EMPTY)) {
            return DeleteCheck.subscribedTo(Set.of());
        } else if (!CONSUMER_PROTOCOL_TYPE.equals(group.protocolType())) {
            return DeleteCheck.refused(GroupError.NON_EMPTY_GROUP);
        }
        return new DeleteCheck(GroupError.NONE, subscribedTopics(group, subscriptions));
    }

    /** The topics the members subscribe to; empty (meaning "all") while unknown or unreadable. */
    private static Optional<Set<String>> subscribedTopics(
            ClassicGroup group, Function<byte[], Set<String>> subscriptions) {
        if (group.protocolName() == null) {
            return Optional.empty();
        }
        try {
            Set<String> topics = new HashSet<>();
            group.members()
                    .forEach(member -> topics.addAll(subscriptions.apply(member.metadata(group.protocolName()))));
            return Optional.of(topics);
        } catch (RuntimeException unreadable) {
            LOGGER.warn(
                    "Cannot read subscriptions group={} protocol={} cause={}",
                    group.groupId(),
                    group.protocolName(),
                    unreadable.toString());
            return Optional.empty();
        }
    }

    /**
     * Removes offsets older than the retention of groups without members: groups only in the store,
     * and in-memory groups that have been Empty for the whole retention ({@code idleSince} tells,
     * given a group id and the cutoff). Only groups with such offsets are asked about (one indexed read),
     * and at most {@link #EXPIRED_GROUPS_PER_ROUND} of them are expired in one round (the rest stay due
     * for the next), so a round costs what is due, never every group with offsets. The store keeps the
     * offsets of a group that another agent than {@code coordinator} coordinates.
     */
    int expire(String coordinator, BiPredicate<String, Long> idleSince) {
        long nowMs = clock.millis();
        Instant cutoff = Instant.ofEpochMilli(nowMs - config.offsetsRetention().toMillis());
        int expired = 0;
        int groups = 0;
        for (String groupId : store.groupsCommittedBefore(cutoff)) {
            if (groups == EXPIRED_GROUPS_PER_ROUND) {
                LOGGER.info(
                        "Offset retention round stopped at its limit; the rest is due next round groups={}", groups);
                break;
            }
            if (idleSince.test(groupId, cutoff.toEpochMilli())) {
                groups++;
                int removed = store.expireOffsets(groupId, cutoff, coordinator, Instant.ofEpochMilli(nowMs));
                if (removed > 0) {
                    LOGGER.info(
                            "Expired committed offsets group={} offsets={} committedBefore={}",
                            groupId,
                            removed,
                            cutoff);
                }
                expired += removed;
            }
        }
        metrics.expired(expired);
        return expired;
    }

    /** Whether an OffsetDelete may go on and which topics the group consumes (empty: unknown, so all). */
    private record DeleteCheck(GroupError error, Optional<Set<String>> subscribed) {

        static DeleteCheck refused(GroupError error) {
            return new DeleteCheck(error, Optional.empty());
        }

        static DeleteCheck subscribedTo(Set<String> topics) {
            return new DeleteCheck(GroupError.NONE, Optional.of(topics));
        }
    }
}
