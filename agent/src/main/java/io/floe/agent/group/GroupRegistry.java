package io.floe.agent.group;

import java.time.Clock;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every group in memory, classic and consumer-protocol, by id. An id names at most one group of
 * either kind: creating a group and taking an id over from the other protocol happen under one lock,
 * taken before any group's lock. An Empty group gives its id up to the other protocol, as Kafka
 * replaces it; a group with members keeps it.
 */
final class GroupRegistry {

    private static final Logger LOGGER = LoggerFactory.getLogger(GroupRegistry.class);

    private final ConcurrentMap<String, ClassicGroup> classic = new ConcurrentHashMap<>();
    private final ConsumerGroups consumer;
    private final TimerService timers;
    private final Clock clock;
    private final Object creation = new Object();

    GroupRegistry(ConsumerGroups consumer, TimerService timers, Clock clock) {
        this.consumer = consumer;
        this.timers = timers;
        this.clock = clock;
    }

    /** The classic group with this id, or null. */
    ClassicGroup classic(String groupId) {
        return classic.get(groupId);
    }

    Collection<ClassicGroup> classicGroups() {
        return classic.values();
    }

    ConsumerGroups consumer() {
        return consumer;
    }

    /** Which protocol the group with this id uses, if one is in memory. */
    Optional<GroupType> typeOf(String groupId) {
        if (consumer.exists(groupId)) {
            return Optional.of(GroupType.CONSUMER);
        }
        return classic.containsKey(groupId) ? Optional.of(GroupType.CLASSIC) : Optional.empty();
    }

    /** The classic group a first JoinGroup joins, created if need be; null when a consumer group with members holds the id. */
    ClassicGroup classicForJoin(String groupId) {
        ClassicGroup existing = classic.get(groupId);
        if (existing != null) {
            return existing;
        }
        synchronized (creation) {
            return consumer.releaseIfEmpty(groupId) ? classic.computeIfAbsent(groupId, this::newClassicGroup) : null;
        }
    }

    /**
     * The consumer group a join (epoch 0) joins, created if need be; null when a classic group with
     * members holds the id. A member of an Empty classic group still in its member-id round trip then
     * finds no group and must start over.
     */
    ConsumerGroups.Entry consumerForJoin(String groupId) {
        ConsumerGroups.Entry existing = consumer.find(groupId);
        if (existing != null) {
            return existing;
        }
        synchronized (creation) {
            ClassicGroup holder = classic.get(groupId);
            boolean free = holder == null
                    || holder.call(() -> {
                        if (!holder.isIn(GroupState.EMPTY)) {
                            return false;
                        }
                        markDead(holder);
                        return true;
                    });
            if (free && holder != null) {
                LOGGER.info("Empty classic group gives its id to a consumer group group={}", groupId);
            }
            return free ? consumer.getOrCreate(groupId) : null;
        }
    }

    /** Whether the group has had no members since before {@code cutoffMs}; true for groups only in the store. */
    boolean idleSince(String groupId, long cutoffMs) {
        ConsumerGroups.Entry entry = consumer.find(groupId);
        if (entry != null) {
            return consumer.idleSince(entry, cutoffMs);
        }
        ClassicGroup group = classic.get(groupId);
        return group == null || group.call(() -> group.isIn(GroupState.EMPTY) && group.stateSinceMs() < cutoffMs);
    }

    /** Empty groups without offsets (or, classic, pending members) leave memory, as Kafka drops them. */
    void dropForgotten(Predicate<String> hasOffsets) {
        consumer.dropForgotten(hasOffsets);
        classic.values().stream()
                .filter(group -> group.call(() -> group.isIn(GroupState.EMPTY)) && !hasOffsets.test(group.groupId()))
                .sorted(Comparator.comparing(ClassicGroup::groupId))
                .forEach(group -> group.run(() -> {
                    if (group.isIn(GroupState.EMPTY) && !group.hasPendingMembers()) {
                        markDead(group);
                    }
                }));
    }

    /** Under the group's lock: the group is gone, its timeouts cancelled. */
    void markDead(ClassicGroup group) {
        group.transitionTo(GroupState.DEAD, clock.millis());
        group.timeouts().cancelAll();
        classic.remove(group.groupId(), group);
    }

    private ClassicGroup newClassicGroup(String groupId) {
        return new ClassicGroup(groupId, timers, clock.millis());
    }
}
