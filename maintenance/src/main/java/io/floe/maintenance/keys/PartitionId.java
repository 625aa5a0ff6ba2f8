package io.floe.maintenance.keys;

import io.floe.core.topic.Topic;
import java.util.UUID;

/** A partition by topic id: a topic deleted and created again under its name starts afresh. */
record PartitionId(UUID topicId, int partition) {

    static PartitionId of(Topic topic, int partition) {
        return new PartitionId(topic.id(), partition);
    }
}
