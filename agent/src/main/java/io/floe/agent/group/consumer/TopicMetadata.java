package io.floe.agent.group.consumer;

import java.util.Objects;
import java.util.UUID;

/**
 * What assignment needs to know of a subscribed topic. A change of any field (a topic recreated
 * under the same name, partitions added) makes the group compute a new target assignment.
 *
 * @param id the topic id
 * @param name the topic name
 * @param partitionCount how many partitions it has
 */
public record TopicMetadata(UUID id, String name, int partitionCount) {

    public TopicMetadata {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        if (partitionCount < 1) {
            throw new IllegalArgumentException(
                    "topic " + name + " needs at least one partition, got " + partitionCount);
        }
    }
}
