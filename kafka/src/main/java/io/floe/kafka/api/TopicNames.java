package io.floe.kafka.api;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/** Checks on the topic names of admin requests, shared by the APIs that take lists of topics. */
final class TopicNames {

    private TopicNames() {}

    /** The names that appear more than once (Kafka answers each of them INVALID_REQUEST). */
    static Set<String> duplicated(Collection<String> names) {
        Set<String> seen = new HashSet<>();
        Set<String> duplicated = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                duplicated.add(name);
            }
        }
        return duplicated;
    }
}
