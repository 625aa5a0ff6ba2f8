package io.floe.agent.group;

import io.floe.agent.group.consumer.Assignment;
import java.util.List;
import java.util.Objects;

/**
 * A ConsumerGroupHeartbeat: a member joins (epoch 0), heartbeats (its epoch), leaves (-1) or, when
 * static, leaves for now (-2). Fields other than the ids and epoch are null (the timeout -1) when
 * they did not change since the member's previous heartbeat.
 *
 * @param groupId the group
 * @param memberId the member id, chosen by the client; empty in a v0 join asks the coordinator for one
 * @param memberEpoch the member's epoch, or 0, -1, -2 as above
 * @param instanceId the static member's instance id, or null
 * @param rackId the client's rack, or null
 * @param rebalanceTimeoutMs the member's time to revoke partitions, or -1
 * @param subscribedTopicNames the topics it subscribes to, or null
 * @param subscribedTopicRegex the regex it subscribes with ("" for none), or null
 * @param serverAssignor the assignor it asks for, or null
 * @param ownedPartitions the partitions it owns now, or null
 * @param clientId its client id
 * @param clientHost its address
 * @param memberIdRequired whether the member id must be given (v1: clients generate it)
 */
public record ConsumerHeartbeat(
        String groupId,
        String memberId,
        int memberEpoch,
        String instanceId,
        String rackId,
        int rebalanceTimeoutMs,
        List<String> subscribedTopicNames,
        String subscribedTopicRegex,
        String serverAssignor,
        Assignment ownedPartitions,
        String clientId,
        String clientHost,
        boolean memberIdRequired) {

    public ConsumerHeartbeat {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientHost, "clientHost");
        subscribedTopicNames = subscribedTopicNames == null ? null : List.copyOf(subscribedTopicNames);
    }

    /** A join, and any heartbeat that repeats every field (clients do after errors), gets the whole assignment back. */
    boolean isFull() {
        return memberEpoch == 0
                || (rebalanceTimeoutMs != -1
                        && (subscribedTopicNames != null || subscribedTopicRegex != null)
                        && ownedPartitions != null);
    }
}
