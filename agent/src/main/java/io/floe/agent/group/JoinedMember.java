package io.floe.agent.group;

/**
 * A member as the leader sees it in its JoinGroup response: its metadata for the selected protocol.
 *
 * @param memberId the member
 * @param groupInstanceId its instance id, or null for a dynamic member
 * @param metadata its metadata for the group's selected protocol
 */
public record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {}
