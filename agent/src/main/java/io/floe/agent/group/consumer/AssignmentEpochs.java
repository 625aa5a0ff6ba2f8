package io.floe.agent.group.consumer;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The member epoch at which each partition a member owns was assigned to it (KIP-1251). A commit
 * sent at an epoch older than the member's is still the member's own for a partition it has held
 * since that epoch or before: its client had not yet heard of the newer epoch, which moved nothing
 * it commits.
 *
 * @param epochs partition epochs by topic id, then partition index
 */
public record AssignmentEpochs(Map<UUID, Map<Integer, Integer>> epochs) {

    public static final AssignmentEpochs EMPTY = new AssignmentEpochs(Map.of());

    public AssignmentEpochs {
        Map<UUID, Map<Integer, Integer>> copy = new HashMap<>();
        epochs.forEach((topic, partitions) -> {
            if (!partitions.isEmpty()) {
                copy.put(topic, Map.copyOf(partitions));
            }
        });
        epochs = Map.copyOf(copy);
    }

    /** Every partition of {@code owned} assigned at {@code epoch}. */
    public static AssignmentEpochs all(Assignment owned, int epoch) {
        return EMPTY.next(owned, epoch);
    }

    /** The epoch the partition was assigned at, or -1 if it is not owned. */
    public int epochOf(UUID topic, int partition) {
        return epochs.getOrDefault(topic, Map.of()).getOrDefault(partition, -1);
    }

    /**
     * The epochs once the member owns {@code owned}: a partition it already held keeps its epoch, one
     * it gains takes {@code epoch}, one it no longer owns is dropped.
     */
    public AssignmentEpochs next(Assignment owned, int epoch) {
        Map<UUID, Map<Integer, Integer>> next = new HashMap<>();
        owned.partitions().forEach((topic, partitions) -> {
            Map<Integer, Integer> held = epochs.getOrDefault(topic, Map.of());
            Map<Integer, Integer> epochsOfTopic = new HashMap<>();
            partitions.forEach(partition -> epochsOfTopic.put(partition, held.getOrDefault(partition, epoch)));
            next.put(topic, epochsOfTopic);
        });
        return new AssignmentEpochs(next);
    }
}
