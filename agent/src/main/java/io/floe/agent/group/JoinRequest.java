package io.floe.agent.group;

import java.util.List;
import java.util.Objects;

/**
 * A JoinGroup: a member asking to be part of the group's next generation.
 *
 * @param groupId the group
 * @param memberId the member id the coordinator gave earlier, or empty on a first join
 * @param groupInstanceId the static member's instance id, or null for a dynamic member
 * @param clientId the client's id, the prefix of generated member ids
 * @param clientHost the client's address, for DescribeGroups
 * @param sessionTimeoutMs how long the member may go without a heartbeat
 * @param rebalanceTimeoutMs how long the coordinator waits for the member to rejoin a rebalance
 * @param protocolType the kind of group ("consumer", "connect", ...)
 * @param protocols the protocols the member supports, in order of preference
 * @param requireKnownMemberId true from JoinGroup v4: a first join gets a member id and
 *     {@link GroupError#MEMBER_ID_REQUIRED} instead of joining at once
 * @param supportsSkipAssignment true from JoinGroup v9: a static leader that rejoins a stable group
 *     is told it leads but must keep the current assignment
 * @param reason why the client joins, for logs; may be null
 */
public record JoinRequest(
        String groupId,
        String memberId,
        String groupInstanceId,
        String clientId,
        String clientHost,
        int sessionTimeoutMs,
        int rebalanceTimeoutMs,
        String protocolType,
        List<Protocol> protocols,
        boolean requireKnownMemberId,
        boolean supportsSkipAssignment,
        String reason) {

    public JoinRequest {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(clientHost, "clientHost");
        Objects.requireNonNull(protocolType, "protocolType");
        protocols = List.copyOf(protocols);
    }
}
