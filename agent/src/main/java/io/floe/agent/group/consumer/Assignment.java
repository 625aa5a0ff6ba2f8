package io.floe.agent.group.consumer;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A set of partitions named by topic id and partition index: what a member owns, must revoke, or is
 * targeted to own. Immutable; topics without partitions are left out, so equal sets are equal values.
 *
 * @param partitions partition indexes by topic id, sorted
 */
public record Assignment(Map<UUID, Set<Integer>> partitions) {

    public static final Assignment EMPTY = new Assignment(Map.of());

    public Assignment {
        Map<UUID, Set<Integer>> copy = new TreeMap<>();
        partitions.forEach((topic, indexes) -> {
            if (!indexes.isEmpty()) {
                copy.put(topic, Collections.unmodifiableSet(new TreeSet<>(indexes)));
            }
        });
        partitions = Collections.unmodifiableMap(copy);
    }

    public static Assignment of(UUID topic, Integer... indexes) {
        return new Assignment(Map.of(topic, Set.of(indexes)));
    }

    public boolean isEmpty() {
        return partitions.isEmpty();
    }

    /** How many partitions. */
    public int size() {
        return partitions.values().stream().mapToInt(Set::size).sum();
    }

    public Set<Integer> partitionsOf(UUID topic) {
        return partitions.getOrDefault(topic, Set.of());
    }

    public boolean contains(UUID topic, int partition) {
        return partitionsOf(topic).contains(partition);
    }

    /** Whether the two share a partition. */
    public boolean intersects(Assignment other) {
        for (Map.Entry<UUID, Set<Integer>> topic : partitions.entrySet()) {
            Set<Integer> theirs = other.partitionsOf(topic.getKey());
            if (topic.getValue().stream().anyMatch(theirs::contains)) {
                return true;
            }
        }
        return false;
    }

    /** The partitions of this one that are not in {@code other}. */
    public Assignment minus(Assignment other) {
        if (isEmpty() || other.isEmpty()) {
            return this;
        }
        Map<UUID, Set<Integer>> rest = new TreeMap<>();
        partitions.forEach((topic, indexes) -> {
            Set<Integer> left = new TreeSet<>(indexes);
            left.removeAll(other.partitionsOf(topic));
            rest.put(topic, left);
        });
        return new Assignment(rest);
    }

    /** The partitions of this one that are also in {@code other}. */
    public Assignment retainedIn(Assignment other) {
        return minus(minus(other));
    }

    /** The partitions of both. */
    public Assignment plus(Assignment other) {
        if (other.isEmpty()) {
            return this;
        }
        Map<UUID, Set<Integer>> all = new TreeMap<>();
        partitions.forEach((topic, indexes) -> all.put(topic, new TreeSet<>(indexes)));
        other.partitions.forEach((topic, indexes) ->
                all.computeIfAbsent(topic, t -> new TreeSet<>()).addAll(indexes));
        return new Assignment(all);
    }

    /** Whether every partition of this one is in {@code other}. */
    public boolean isSubsetOf(Assignment other) {
        return partitions.entrySet().stream()
                .allMatch(topic -> other.partitionsOf(topic.getKey()).containsAll(topic.getValue()));
    }

    @Override
    public String toString() {
        return partitions.toString();
    }
}
