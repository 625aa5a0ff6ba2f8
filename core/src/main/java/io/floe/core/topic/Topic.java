package io.floe.core.topic;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A topic as the metadata store holds it. {@code configs} holds only the overrides set for this
 * topic; defaults come from the agent's configuration.
 */
public record Topic(String name, UUID id, int partitionCount, Map<String, String> configs) {

    public Topic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
        configs = Map.copyOf(configs);
        if (partitionCount < 1) {
            throw new IllegalArgumentException(
                    "topic " + name + " needs at least one partition, got " + partitionCount);
        }
    }

    public boolean hasPartition(int partition) {
        return partition >= 0 && partition < partitionCount;
    }
}
