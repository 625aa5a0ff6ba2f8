package io.floe.agent.group;

import io.floe.agent.group.consumer.ConsumerGroup;
import io.floe.agent.group.consumer.ConsumerGroupState;
import io.floe.agent.group.consumer.ConsumerMember;
import io.floe.agent.group.consumer.PartitionAssignor;
import io.floe.agent.group.consumer.RangeAssignor;
import io.floe.agent.group.consumer.TopicMetadata;
import io.floe.agent.group.consumer.UniformAssignor;
import io.floe.core.group.GroupMembership;
import io.floe.core.log.TopicPartition;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's consumer-protocol (KIP-848) groups, in memory like the classic ones: creation
 * and removal, heartbeats (through {@link ConsumerHeartbeats}), and what the offset and
 * administration requests need to know of them. Each group runs under its own lock. Creating a group
 * and giving its id up to a classic group happen under the coordinator's creation lock, so an id
 * names at most one group of either kind.
 */
final class ConsumerGroups {

    private static final Logger LOGGER = LoggerFactory.getLogger(ConsumerGroups.class);

    private final TimerService timers;
    private final Clock clock;
    private final ConsumerHeartbeats heartbeats;
    private final String defaultAssignor;
    private final Duration sessionTimeout;
    private final ConcurrentMap<String, Entry> groups = new ConcurrentHashMap<>();

    /** A group with its timeouts. */
    record Entry(ConsumerGroup group, GroupTimeouts timeouts) {}

    ConsumerGroups(
            GroupCoordinatorConfig config,
            TimerService timers,
            Clock clock,
            GroupMetrics metrics,
            Supplier<UUID> memberIds) {
        this.timers = timers;
        this.clock = clock;
        this.defaultAssignor = config.consumerGroups().defaultAssignor();
        this.sessionTimeout = config.consumerGroups().sessionTimeout();
        this.heartbeats = new ConsumerHeartbeats(config, assignors(config.consumerGroups()), clock, metrics, memberIds);
    }

    private static Map<String, PartitionAssignor> assignors(ConsumerGroupConfig config) {
        Map<String, PartitionAssignor> byName = new HashMap<>();
        for (String name : config.assignors()) {
            byName.put(
                    name,
                    switch (name) {
                        case UniformAssignor.NAME -> new UniformAssignor();
                        case RangeAssignor.NAME -> new RangeAssignor();
                        default -> throw new IllegalArgumentException("unknown consumer group assignor " + name);
                    });
        }
        return byName;
    }

    Entry find(String groupId) {
        return groups.get(groupId);
    }

    boolean exists(String groupId) {
        return groups.containsKey(groupId);
    }

    /** The group, created Empty if absent. The caller holds the coordinator's creation lock. */
    Entry getOrCreate(String groupId) {
        return groups.computeIfAbsent(groupId, id -> {
            ConsumerGroup group = new ConsumerGroup(id, clock.millis());
            return new Entry(group, new GroupTimeouts(timers, group::run));
        });
    }

    /**
     * Gives the id up if its group has no members (a classic group is about to take it); true if
     * the id is free now. The caller holds the coordinator's creation lock.
     */
    boolean releaseIfEmpty(String groupId) {
        Entry entry = groups.get(groupId);
        if (entry == null) {
            return true;
        }
        boolean released = entry.group().call(() -> {
            if (entry.group().size() > 0) {
                return false;
            }
            markDead(entry);
            return true;
        });
        if (released) {
            LOGGER.info("Empty consumer group gives its id to a classic group group={}", groupId);
        }
        return released;
    }

    Optional<ConsumerHeartbeatResult> validate(ConsumerHeartbeat request) {
        return heartbeats.validate(request);
    }

    ConsumerHeartbeatResult heartbeat(Entry entry, ConsumerHeartbeat request, TopicCatalog topics) {
        return entry.group().call(() -> heartbeats.heartbeat(entry, request, topics));
    }

    // ----- offsets

    /**
     * OffsetCommit's member check, as Kafka's consumer groups make it: commits from outside the group
     * (epoch below zero) only while it has no members, otherwise the member must exist and may commit
     * each of {@code partitions} at that epoch ({@link ConsumerMember#mayCommit}). Without partitions
     * only the member's current epoch passes.
     */
    GroupError validateOffsetCommit(
            Entry entry, String memberId, int memberEpoch, Collection<TopicPartition> partitions) {
        ConsumerGroup group = entry.group();
        return group.call(() -> {
            if (group.isDead()) {
                return GroupError.COORDINATOR_NOT_AVAILABLE;
            } else if (memberEpoch < 0 && group.size() == 0) {
                return GroupError.NONE;
            }
            ConsumerMember member = memberId == null ? null : group.member(memberId);
            if (member == null) {
                return GroupError.UNKNOWN_MEMBER_ID;
            } else if (memberEpoch == member.epoch()) {
                return GroupError.NONE;
            }
            Map<String, TopicMetadata> topics = group.subscribedTopics();
            boolean mayCommit = memberEpoch < member.epoch()
                    && !partitions.isEmpty()
                    && partitions.stream().allMatch(partition -> {
                        TopicMetadata topic = topics.get(partition.topic());
                        return topic != null && member.mayCommit(memberEpoch, topic.id(), partition.partition());
                    });
            return mayCommit ? GroupError.NONE : GroupError.STALE_MEMBER_EPOCH;
        });
    }

    /** OffsetFetch's member check: requests without a member (admin clients) always pass. */
    GroupError validateOffsetFetch(Entry entry, String memberId, int memberEpoch) {
        if ((memberId == null || memberId.isEmpty()) && memberEpoch < 0) {
            return GroupError.NONE;
        }
        ConsumerGroup group = entry.group();
        return group.call(() -> memberAtEpoch(group, memberId, memberEpoch));
    }

    private static GroupError memberAtEpoch(ConsumerGroup group, String memberId, int memberEpoch) {
        ConsumerMember member = memberId == null ? null : group.member(memberId);
        if (member == null) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        return member.epoch() == memberEpoch ? GroupError.NONE : GroupError.STALE_MEMBER_EPOCH;
    }

    /** The topics the group consumes, whose offsets OffsetDelete keeps; empty set when it has no members. */
    Optional<Set<String>> subscribedTopics(Entry entry) {
        ConsumerGroup group = entry.group();
        return group.call(() -> group.isDead() ? Optional.empty() : Optional.of(group.subscribedTopicNames()));
    }

    /** Whether the group has had no members since before {@code cutoffMs}, so its offsets may expire. */
    boolean idleSince(Entry entry, long cutoffMs) {
        ConsumerGroup group = entry.group();
        return group.call(() -> group.state() == ConsumerGroupState.EMPTY && group.stateSinceMs() < cutoffMs);
    }

    // ----- administration

    List<GroupListing> list() {
        List<GroupListing> listed = new ArrayList<>();
        for (Entry entry : groups.values()) {
            ConsumerGroupState state = entry.group().state();
            if (state != ConsumerGroupState.DEAD) {
                listed.add(new GroupListing(
                        entry.group().groupId(),
                        OffsetOperations.CONSUMER_PROTOCOL_TYPE,
                        state.label(),
                        GroupType.CONSUMER));
            }
        }
        return listed;
    }

    Optional<ConsumerGroupDescription> describe(String groupId) {
        Entry entry = groups.get(groupId);
        if (entry == null) {
            return Optional.empty();
        }
        ConsumerGroup group = entry.group();
        return group.call(() -> group.isDead() ? Optional.empty() : Optional.of(describe(group)));
    }

    private ConsumerGroupDescription describe(ConsumerGroup group) {
        List<ConsumerGroupDescription.Member> members = new ArrayList<>();
        for (ConsumerMember member : group.members()) {
            members.add(new ConsumerGroupDescription.Member(
                    member.memberId(),
                    member.instanceId(),
                    member.subscription().rackId(),
                    member.epoch(),
                    member.subscription().clientId(),
                    member.subscription().clientHost(),
                    member.subscription().topicNames(),
                    member.subscription().topicRegex(),
                    member.assigned(),
                    group.targetOf(member.memberId())));
        }
        String assignor = group.preferredAssignor();
        return new ConsumerGroupDescription(
                group.groupId(),
                group.state(),
                group.groupEpoch(),
                group.assignmentEpoch(),
                assignor == null ? defaultAssignor : assignor,
                members);
    }

    /** DeleteGroups: refused while the group has members. */
    GroupError delete(Entry entry) {
        ConsumerGroup group = entry.group();
        return group.call(() -> {
            if (group.isDead()) {
                return GroupError.GROUP_ID_NOT_FOUND;
            } else if (group.state() != ConsumerGroupState.EMPTY) {
                return GroupError.NON_EMPTY_GROUP;
            }
            markDead(entry);
            return GroupError.NONE;
        });
    }

    /** Empty groups without committed offsets leave memory, as Kafka drops them. */
    void dropForgotten(Predicate<String> hasOffsets) {
        for (Entry entry : groups.values()) {
            boolean empty = entry.group().call(() -> entry.group().state() == ConsumerGroupState.EMPTY);
            if (empty && !hasOffsets.test(entry.group().groupId())) {
                entry.group().run(() -> {
                    if (entry.group().state() == ConsumerGroupState.EMPTY) {
                        markDead(entry);
                    }
                });
            }
        }
    }

    /**
     * The coordinator lost the group's lease: it leaves memory, and its members, told they are
     * unknown, rejoin wherever the group is coordinated now. Returns the session timeout its members
     * had (zero without members).
     */
    Duration forget(Entry entry) {
        return entry.group().call(() -> {
            Duration members = entry.group().size() == 0 ? Duration.ZERO : sessionTimeout;
            markDead(entry);
            return members;
        });
    }

    /** The group's members as they are recorded with the coordinator lease. */
    GroupMembership membership(Entry entry) {
        ConsumerGroup group = entry.group();
        return group.call(() -> {
            if (group.isDead() || group.size() == 0) {
                return GroupMembership.EMPTY;
            }
            List<GroupMembership.Member> members = group.members().stream()
                    .map(member -> new GroupMembership.Member(
                            member.memberId(),
                            member.instanceId(),
                            member.subscription().clientId(),
                            member.subscription().clientHost(),
                            (int) sessionTimeout.toMillis(),
                            member.subscription().rebalanceTimeoutMs()))
                    .toList();
            return new GroupMembership(GroupMembership.Protocol.CONSUMER, group.groupEpoch(), "", "", members);
        });
    }

    /** How long the group's members may go without a heartbeat (zero without members). */
    Duration sessionTimeoutOf(Entry entry) {
        return entry.group().size() == 0 ? Duration.ZERO : sessionTimeout;
    }

    Collection<ConsumerGroup> all() {
        return groups.values().stream().map(Entry::group).toList();
    }

    /** Stops every timeout; members keep heartbeating to nobody until the agent is gone. */
    void close() {
        groups.values()
                .forEach(entry -> entry.group().run(() -> entry.timeouts().cancelAll()));
    }

    /** Under the group's lock. */
    private void markDead(Entry entry) {
        entry.group().markDead(clock.millis());
        entry.timeouts().cancelAll();
        groups.remove(entry.group().groupId(), entry);
    }
}
