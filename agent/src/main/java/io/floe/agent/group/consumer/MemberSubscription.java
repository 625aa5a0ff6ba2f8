package io.floe.agent.group.consumer;

import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a member asked for and who it is: the part of a member that its heartbeats set. A heartbeat
 * repeats a field only when it changed, so {@link #update} keeps the fields it is given as null.
 *
 * @param instanceId the static member's instance id, or null for a dynamic member
 * @param rackId the client's rack, or null
 * @param clientId the client id of its last heartbeat
 * @param clientHost the address of its last heartbeat
 * @param rebalanceTimeoutMs how long it may take to revoke partitions before it is fenced
 * @param topicNames the topics it subscribes to by name
 * @param topicRegex the regular expression it subscribes with, or null
 * @param serverAssignor the assignor it asks for, or null for the coordinator's default
 */
public record MemberSubscription(
        String instanceId,
        String rackId,
        String clientId,
        String clientHost,
        int rebalanceTimeoutMs,
        SortedSet<String> topicNames,
        String topicRegex,
        String serverAssignor) {

    public static final MemberSubscription NONE =
            new MemberSubscription(null, null, "", "", 0, new TreeSet<>(), null, null);

    public MemberSubscription {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientHost, "clientHost");
        topicNames = Collections.unmodifiableSortedSet(new TreeSet<>(topicNames));
        topicRegex = topicRegex == null || topicRegex.isEmpty() ? null : topicRegex;
    }

    /**
     * This subscription with the fields a heartbeat set: null (and -1 for the timeout) means
     * unchanged; an empty regex clears the regex.
     */
    public MemberSubscription update(
            String newInstanceId,
            String newRackId,
            String newClientId,
            String newClientHost,
            int newRebalanceTimeoutMs,
            Collection<String> newTopicNames,
            String newTopicRegex,
            String newServerAssignor) {
        return new MemberSubscription(
                newInstanceId == null ? instanceId : newInstanceId,
                newRackId == null ? rackId : newRackId,
                newClientId,
                newClientHost,
                newRebalanceTimeoutMs < 0 ? rebalanceTimeoutMs : newRebalanceTimeoutMs,
                newTopicNames == null ? topicNames : new TreeSet<>(newTopicNames),
                newTopicRegex == null ? topicRegex : newTopicRegex,
                newServerAssignor == null ? serverAssignor : newServerAssignor);
    }

    /** Whether the topics it asks for differ: names or regex. A new assignor alone does not rebalance, as in Kafka. */
    public boolean subscribesDifferentlyFrom(MemberSubscription other) {
        return !topicNames.equals(other.topicNames) || !Objects.equals(topicRegex, other.topicRegex);
    }
}
