package io.floe.agent.group;

import java.util.Objects;

/**
 * A member's heartbeat, which keeps its session alive and tells it whether a rebalance started.
 *
 * @param groupId the group
 * @param memberId the member
 * @param groupInstanceId the static member's instance id, or null
 * @param generationId the generation the member is in
 */
public record HeartbeatRequest(String groupId, String memberId, String groupInstanceId, int generationId) {

    public HeartbeatRequest {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
    }
}
