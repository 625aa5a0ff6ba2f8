package io.floe.maintenance.compaction;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.object.ObjectKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a round's batches become outputs: by partition, in offset order, cut at the target size. A chunk
 * that would copy one object holding only that partition's batches into a new one changes nothing
 * and is left out. Pure.
 */
final class CompactionPlan {

    private CompactionPlan() {}

    static List<List<BatchCoordinate>> chunks(List<BatchCoordinate> batches, long targetBytes) {
        Map<TopicPartition, List<BatchCoordinate>> byPartition = new LinkedHashMap<>();
        batches.stream()
                .sorted(Comparator.comparing(
                                (BatchCoordinate b) -> b.topicPartition().topic())
                        .thenComparingInt(b -> b.topicPartition().partition())
                        .thenComparingLong(BatchCoordinate::baseOffset))
                .forEach(b -> byPartition
                        .computeIfAbsent(b.topicPartition(), tp -> new ArrayList<>())
                        .add(b));
        List<List<BatchCoordinate>> chunks = new ArrayList<>();
        for (List<BatchCoordinate> partition : byPartition.values()) {
            List<BatchCoordinate> current = new ArrayList<>();
            long bytes = 0;
            for (BatchCoordinate batch : partition) {
                if (!current.isEmpty() && bytes + batch.range().length() > targetBytes) {
                    chunks.add(current);
                    current = new ArrayList<>();
                    bytes = 0;
                }
                current.add(batch);
                bytes += batch.range().length();
            }
            if (!current.isEmpty()) {
                chunks.add(current);
            }
        }
        Map<ObjectKey, Set<TopicPartition>> partitionsByObject = new HashMap<>();
        for (BatchCoordinate batch : batches) {
            partitionsByObject
                    .computeIfAbsent(batch.object(), k -> new HashSet<>())
                    .add(batch.topicPartition());
        }
        chunks.removeIf(chunk -> {
            Set<ObjectKey> sources = new HashSet<>();
            chunk.forEach(batch -> sources.add(batch.object()));
            return sources.size() == 1
                    && partitionsByObject.get(sources.iterator().next()).size() == 1;
        });
        return chunks;
    }
}
