package io.floe.agent.group.consumer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Kafka's {@code range} assignor: per topic, the subscribed members in member id order each take a
 * contiguous range of partitions, the first ones one more when the count does not divide evenly.
 * Members subscribed to topics with equal partition counts get the same partition numbers of each,
 * which is what co-partitioned joins need. It does not try to keep partitions where they were.
 */
public final class RangeAssignor implements PartitionAssignor {

    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Assignment> assign(Map<String, MemberSpec> members, Map<UUID, TopicMetadata> topics) {
        Map<String, Map<UUID, Set<Integer>>> assigned = new HashMap<>();
        members.keySet().forEach(member -> assigned.put(member, new HashMap<>()));
        topics.values().forEach(topic -> {
            List<String> subscribers = new ArrayList<>(new TreeSet<>(members.keySet()));
            subscribers.removeIf(
                    member -> !members.get(member).subscribedTopics().contains(topic.id()));
            int count = subscribers.size();
            int next = 0;
            for (int i = 0; i < count; i++) {
                int size = topic.partitionCount() / count + (i < topic.partitionCount() % count ? 1 : 0);
                Set<Integer> range = new TreeSet<>();
                for (int p = next; p < next + size; p++) {
                    range.add(p);
                }
                next += size;
                assigned.get(subscribers.get(i)).put(topic.id(), range);
            }
        });
        Map<String, Assignment> result = new HashMap<>();
        assigned.forEach((member, partitions) -> result.put(member, new Assignment(partitions)));
        return result;
    }
}
