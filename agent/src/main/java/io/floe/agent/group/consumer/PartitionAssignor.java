package io.floe.agent.group.consumer;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * A server-side assignor: from the members' subscriptions and the subscribed topics, the target
 * assignment of every member. Implementations are pure and deterministic: the same input gives the
 * same output, and every partition of a subscribed topic goes to exactly one member subscribed to it
 * (none when no member subscribes).
 */
public interface PartitionAssignor {

    /** The name clients ask for with {@code group.remote.assignor}. */
    String name();

    /**
     * The target assignment of each member, by member id; every member of {@code members} has an entry.
     *
     * @param members each member's subscription and current target assignment (which a sticky
     *     assignor keeps where it can)
     * @param topics the subscribed topics that exist, by id
     */
    Map<String, Assignment> assign(Map<String, MemberSpec> members, Map<UUID, TopicMetadata> topics);

    /**
     * One member as an assignor sees it.
     *
     * @param subscribedTopics ids of the existing topics it subscribes to
     * @param current its current target assignment
     */
    record MemberSpec(Set<UUID> subscribedTopics, Assignment current) {

        public MemberSpec {
            subscribedTopics = Set.copyOf(subscribedTopics);
            Objects.requireNonNull(current, "current");
        }
    }
}
