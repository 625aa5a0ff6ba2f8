package io.floe.agent.group;

import io.floe.agent.group.consumer.TopicMetadata;
import io.floe.agent.topic.Topics;
import java.util.List;
import java.util.Optional;

/**
 * The topics consumer groups subscribe to, as the coordinator reads them on each heartbeat (so that
 * new partitions and new topics matching a regex reach the assignment). Called under a group's lock,
 * so lookups should answer from memory; they may block on a cache miss.
 */
public interface TopicCatalog {

    /** The topic named {@code name}, if it exists. */
    Optional<TopicMetadata> find(String name);

    /** Every topic name; read only to resolve subscription regexes, at most once per refresh interval. */
    List<String> names();

    /** The agent's topics. */
    static TopicCatalog of(Topics topics) {
        return new TopicCatalog() {
            @Override
            public Optional<TopicMetadata> find(String name) {
                return topics.find(name)
                        .map(topic -> new TopicMetadata(topic.id(), topic.name(), topic.partitionCount()));
            }

            @Override
            public List<String> names() {
                return topics.list().stream()
                        .map(io.floe.core.topic.Topic::name)
                        .toList();
            }
        };
    }
}
