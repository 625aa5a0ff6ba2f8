package io.floe.agent.group.consumer;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One consumer group's state: members, the group epoch, the target assignment and its epoch, the
 * subscribed topics, and an index of who owns each partition now. Every method other than
 * {@link #call}, {@link #run}, {@link #groupId} and {@link #state} must run under the group's lock
 * (inside {@link #call} or {@link #run}); the state is also readable without it, for listings and metrics.
 *
 * <p>Invariant: no partition is owned (assigned or pending revocation) by two members at once;
 * {@link #put} refuses a member that would break it.
 */
public final class ConsumerGroup {

    private final String groupId;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, ConsumerMember> members = new LinkedHashMap<>();
    private final Map<String, String> staticMembers = new HashMap<>();
    private final Map<String, Assignment> targets = new HashMap<>();
    private final Map<UUID, Map<Integer, String>> owners = new HashMap<>();
    private Map<String, TopicMetadata> subscribedTopics = Map.of();
    private Map<String, Set<String>> resolvedRegexes = Map.of();
    private long regexesResolvedAtMs = Long.MIN_VALUE;
    private int groupEpoch;
    private int assignmentEpoch;
    /** Read without the lock by listings and metrics. */
    private volatile ConsumerGroupState state = ConsumerGroupState.EMPTY;

    private long stateSinceMs;

    public ConsumerGroup(String groupId, long nowMs) {
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.stateSinceMs = nowMs;
    }

    // ----- locking

    public void run(Runnable operation) {
        call(() -> {
            operation.run();
            return null;
        });
    }

    public <T> T call(Supplier<T> operation) {
        lock.lock();
        try {
            return operation.get();
        } finally {
            lock.unlock();
        }
    }

    // ----- state

    public String groupId() {
        return groupId;
    }

    public ConsumerGroupState state() {
        return state;
    }

    /** When the group entered its current state. */
    public long stateSinceMs() {
        return stateSinceMs;
    }

    public boolean isDead() {
        return state == ConsumerGroupState.DEAD;
    }

    /** The group is gone (deleted or taken over by a classic group); requests must find it again. */
    public void markDead(long nowMs) {
        transitionTo(ConsumerGroupState.DEAD, nowMs);
    }

    public int groupEpoch() {
        return groupEpoch;
    }

    public int assignmentEpoch() {
        return assignmentEpoch;
    }

    /** A rebalance: a new target assignment is due. */
    public void bumpGroupEpoch(long nowMs) {
        groupEpoch++;
        refreshState(nowMs);
    }

    // ----- members

    public ConsumerMember member(String memberId) {
        return members.get(memberId);
    }

    public boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    public Collection<ConsumerMember> members() {
        return Collections.unmodifiableCollection(members.values());
    }

    public int size() {
        return members.size();
    }

    /** The member holding {@code instanceId}, or null. */
    public ConsumerMember staticMember(String instanceId) {
        String memberId = staticMembers.get(instanceId);
        return memberId == null ? null : members.get(memberId);
    }

    /** Adds the member or replaces its previous version, keeping the ownership index. */
    public void put(ConsumerMember member, long nowMs) {
        checkFree(member, member.assigned());
        checkFree(member, member.pendingRevocation());
        ConsumerMember previous = members.get(member.memberId());
        if (previous != null) {
            release(previous);
        }
        own(member.assigned(), member.memberId());
        own(member.pendingRevocation(), member.memberId());
        members.put(member.memberId(), member);
        if (member.isStatic()) {
            staticMembers.put(member.instanceId(), member.memberId());
        }
        refreshState(nowMs);
    }

    /** Removes the member: its partitions are free for others, its target is dropped. */
    public void remove(String memberId, long nowMs) {
        ConsumerMember removed = members.remove(memberId);
        if (removed == null) {
            return;
        }
        release(removed);
        targets.remove(memberId);
        if (removed.isStatic()) {
            staticMembers.remove(removed.instanceId(), memberId);
        }
        refreshState(nowMs);
    }

    /** A static member's new incarnation takes over its instance id, partitions and target. */
    public void replaceStatic(ConsumerMember previous, ConsumerMember replacement, long nowMs) {
        Assignment target = targetOf(previous.memberId());
        remove(previous.memberId(), nowMs);
        targets.put(replacement.memberId(), target);
        put(replacement, nowMs);
    }

    /** The member that owns the partition (assigned or pending revocation), or null. */
    public String ownerOf(UUID topic, int partition) {
        return owners.getOrDefault(topic, Map.of()).get(partition);
    }

    private void checkFree(ConsumerMember member, Assignment partitions) {
        partitions
                .partitions()
                .forEach((topic, indexes) -> indexes.forEach(partition -> {
                    String owner = ownerOf(topic, partition);
                    if (owner != null && !owner.equals(member.memberId())) {
                        throw new IllegalStateException("partition " + topic + "-" + partition + " of group " + groupId
                                + " is owned by " + owner + ", cannot give it to " + member.memberId());
                    }
                }));
    }

    private void own(Assignment partitions, String memberId) {
        partitions
                .partitions()
                .forEach((topic, indexes) -> indexes.forEach(partition ->
                        owners.computeIfAbsent(topic, t -> new HashMap<>()).put(partition, memberId)));
    }

    private void release(ConsumerMember member) {
        for (Assignment partitions : new Assignment[] {member.assigned(), member.pendingRevocation()}) {
            partitions.partitions().forEach((topic, indexes) -> {
                Map<Integer, String> byPartition = owners.get(topic);
                if (byPartition != null) {
                    indexes.forEach(partition -> byPartition.remove(partition, member.memberId()));
                    if (byPartition.isEmpty()) {
                        owners.remove(topic);
                    }
                }
            });
        }
    }

    // ----- target assignment

    public Assignment targetOf(String memberId) {
        return targets.getOrDefault(memberId, Assignment.EMPTY);
    }

    /** Computes the target assignment of every member with {@code assignor}, at the group epoch. */
    public void assign(PartitionAssignor assignor, long nowMs) {
        Map<UUID, TopicMetadata> topics =
                subscribedTopics.values().stream().collect(Collectors.toMap(TopicMetadata::id, topic -> topic));
        Map<String, PartitionAssignor.MemberSpec> specs = new HashMap<>();
        members.values()
                .forEach(member -> specs.put(
                        member.memberId(),
                        new PartitionAssignor.MemberSpec(subscribedTopicIds(member), targetOf(member.memberId()))));
        Map<String, Assignment> computed = assignor.assign(specs, topics);
        targets.clear();
        targets.putAll(computed);
        assignmentEpoch = groupEpoch;
        refreshState(nowMs);
    }

    private Set<UUID> subscribedTopicIds(ConsumerMember member) {
        return topicsOf(member).stream()
                .map(subscribedTopics::get)
                .filter(Objects::nonNull)
                .map(TopicMetadata::id)
                .collect(Collectors.toSet());
    }

    /** The assignor most members ask for (ties: by name), or null when none asks. */
    public String preferredAssignor() {
        Map<String, Long> votes = members.values().stream()
                .map(member -> member.subscription().serverAssignor())
                .filter(Objects::nonNull)
                .collect(Collectors.groupingBy(name -> name, Collectors.counting()));
        return votes.entrySet().stream()
                .max(Map.Entry.<String, Long>comparingByValue()
                        .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder())))
                .map(Map.Entry::getKey)
                .orElse(null);
    }

    // ----- subscriptions

    /** The topic names the member subscribes to: by name, and through its regex as last resolved. */
    public Set<String> topicsOf(ConsumerMember member) {
        MemberSubscription subscription = member.subscription();
        if (subscription.topicRegex() == null) {
            return subscription.topicNames();
        }
        Set<String> topics = new TreeSet<>(subscription.topicNames());
        topics.addAll(resolvedRegexes.getOrDefault(subscription.topicRegex(), Set.of()));
        return topics;
    }

    /** Every topic name some member subscribes to. */
    public Set<String> subscribedTopicNames() {
        Set<String> topics = new TreeSet<>();
        members.values().forEach(member -> topics.addAll(topicsOf(member)));
        return topics;
    }

    /** The regular expressions the members subscribe with. */
    public Set<String> regexes() {
        return members.values().stream()
                .map(member -> member.subscription().topicRegex())
                .filter(Objects::nonNull)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Whether each of the members' regexes has been resolved. */
    public boolean hasUnresolvedRegexes() {
        return !resolvedRegexes.keySet().containsAll(regexes());
    }

    public long regexesResolvedAtMs() {
        return regexesResolvedAtMs;
    }

    /** Stores the topics each regex matches now; true if that changes what the group subscribes to. */
    public boolean resolvedRegexes(Map<String, Set<String>> resolved, long nowMs) {
        Map<String, Set<String>> copy = new HashMap<>();
        resolved.forEach((regex, topics) -> copy.put(regex, Set.copyOf(topics)));
        Set<String> before = subscribedTopicNames();
        resolvedRegexes = Map.copyOf(copy);
        regexesResolvedAtMs = nowMs;
        return !before.equals(subscribedTopicNames());
    }

    /** The subscribed topics that exist, by name, as the target assignment last saw them. */
    public Map<String, TopicMetadata> subscribedTopics() {
        return subscribedTopics;
    }

    /** Records the subscribed topics' metadata; true if it changed (a new target assignment is due). */
    public boolean subscribedTopics(Map<String, TopicMetadata> topics) {
        if (topics.equals(subscribedTopics)) {
            return false;
        }
        subscribedTopics = Map.copyOf(topics);
        return true;
    }

    // ----- derived state

    private void refreshState(long nowMs) {
        if (state == ConsumerGroupState.DEAD) {
            return;
        }
        ConsumerGroupState next;
        if (members.isEmpty()) {
            next = ConsumerGroupState.EMPTY;
        } else if (groupEpoch > assignmentEpoch) {
            next = ConsumerGroupState.ASSIGNING;
        } else if (members.values().stream().allMatch(member -> member.isReconciledTo(assignmentEpoch))) {
            next = ConsumerGroupState.STABLE;
        } else {
            next = ConsumerGroupState.RECONCILING;
        }
        if (next != state) {
            transitionTo(next, nowMs);
        }
    }

    private void transitionTo(ConsumerGroupState next, long nowMs) {
        state = next;
        stateSinceMs = nowMs;
    }
}
