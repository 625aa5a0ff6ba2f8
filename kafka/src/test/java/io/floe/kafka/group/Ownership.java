package io.floe.kafka.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * One consumer's ownership of one partition, from its rebalance listener's point of view, timed in
 * {@link System#nanoTime()} inside the callbacks (every consumer lives in the test's JVM, so the
 * times compare).
 *
 * <p>What the consumer protocol promises the clients: an owner's onPartitionsRevoked returns before
 * it acknowledges the revocation in a heartbeat, and the coordinator hands the partition to the
 * next owner only after that heartbeat, so the next owner's onPartitionsAssigned starts later. An
 * interval therefore runs from the start of the assign callback to the end of the revoke callback,
 * and two consumers' intervals for one partition must not overlap. A member the coordinator fenced
 * (its session or rebalance timeout expired) learns it in onPartitionsLost, after its partitions may
 * have moved on: the protocol promises nothing about such an interval, so it cannot be the earlier
 * side of an overlap.
 *
 * @param partition the partition
 * @param owner the consumer's name
 * @param fromNanos when its onPartitionsAssigned started
 * @param toNanos when its onPartitionsRevoked returned, its onPartitionsLost started, or (had it
 *     neither) its close returned
 * @param end how the ownership ended
 */
record Ownership(TopicPartition partition, String owner, long fromNanos, long toNanos, End end) {

    enum End {
        REVOKED,
        LOST,
        CLOSED
    }

    /** Every moment two consumers owned one partition, described; empty when there was none. */
    static List<String> overlaps(Collection<Ownership> ownerships) {
        if (ownerships.isEmpty()) {
            return List.of();
        }
        long zero = ownerships.stream().mapToLong(Ownership::fromNanos).min().orElseThrow();
        Map<String, List<Ownership>> byPartition = new TreeMap<>();
        ownerships.forEach(ownership -> byPartition
                .computeIfAbsent(ownership.partition().toString(), p -> new ArrayList<>())
                .add(ownership));
        List<String> overlaps = new ArrayList<>();
        for (List<Ownership> intervals : byPartition.values()) {
            intervals.sort(Comparator.comparingLong(Ownership::fromNanos));
            for (int i = 0; i < intervals.size(); i++) {
                Ownership earlier = intervals.get(i);
                if (earlier.end() == End.LOST) {
                    continue;
                }
                for (int j = i + 1; j < intervals.size(); j++) {
                    Ownership later = intervals.get(j);
                    if (!later.owner().equals(earlier.owner()) && later.fromNanos() < earlier.toNanos()) {
                        overlaps.add(earlier.partition() + " given to " + later.describe(zero)
                                + " while still owned by " + earlier.describe(zero));
                    }
                }
            }
        }
        return overlaps;
    }

    private String describe(long zero) {
        return String.format(
                "%s [%.1f ms, %.1f ms %s]",
                owner,
                (fromNanos - zero) / 1e6,
                (toNanos - zero) / 1e6,
                end.name().toLowerCase());
    }
}
