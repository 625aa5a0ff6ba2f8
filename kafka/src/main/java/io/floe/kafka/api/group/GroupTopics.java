package io.floe.kafka.api.group;

import io.floe.agent.topic.Topics;
import io.floe.core.topic.Topic;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * Topic lookups for the offset APIs, which name topics (up to OffsetCommit/OffsetFetch v9) or give
 * their ids (v10). Blocking: a cache miss reads the metadata store.
 */
final class GroupTopics {

    private final Topics topics;

    GroupTopics(Topics topics) {
        this.topics = topics;
    }

    Optional<Topic> byName(String name) {
        return topics.find(name);
    }

    Optional<Topic> byId(Uuid id) {
        return topics.find(uuidOf(id));
    }

    static Uuid idOf(Topic topic) {
        return idOf(topic.id());
    }

    static Uuid idOf(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    static UUID uuidOf(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
