package io.floe.agent.group;

import java.util.List;

/**
 * The answer to a JoinGroup, given when the join phase completes (or at once for errors).
 *
 * @param error why the join failed, or {@link GroupError#NONE}
 * @param memberId the member's id (generated on a first join), or empty
 * @param generationId the new generation, -1 on error
 * @param protocolType the group's protocol type, null on error
 * @param protocolName the selected protocol, null on error
 * @param leaderId the member that computes the assignment, empty on error
 * @param members every member with its metadata, for the leader only; empty for the others
 * @param skipAssignment true when the leader must not compute a new assignment (a static leader
 *     rejoined without changes)
 */
public record JoinResponse(
        GroupError error,
        String memberId,
        int generationId,
        String protocolType,
        String protocolName,
        String leaderId,
        List<JoinedMember> members,
        boolean skipAssignment) {

    public static final int NO_GENERATION = -1;

    public JoinResponse {
        members = List.copyOf(members);
    }

    static JoinResponse failed(GroupError error, String memberId) {
        return new JoinResponse(error, memberId, NO_GENERATION, null, null, "", List.of(), false);
    }
}
