package io.floe.core.topic;

import java.util.Map;
import java.util.Objects;

/** A request to create a topic: its name, partition count and config overrides. */
public record NewTopic(String name, int partitionCount, Map<String, String> configs) {

    public NewTopic {
        Objects.requireNonNull(name, "name");
        configs = Map.copyOf(configs);
        if (partitionCount < 1) {
            throw new IllegalArgumentException(
                    "topic " + name + " needs at least one partition, got " + partitionCount);
        }
    }
}
