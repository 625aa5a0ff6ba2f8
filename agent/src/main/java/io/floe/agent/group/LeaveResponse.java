package io.floe.agent.group;

import java.util.List;

/**
 * The answer to a LeaveGroup.
 *
 * @param error a failure of the whole request (the group is being deleted), or {@link GroupError#NONE}
 * @param members the outcome per leaving member, in request order
 */
public record LeaveResponse(GroupError error, List<Left> members) {

    public LeaveResponse {
        members = List.copyOf(members);
    }

    /** One member's outcome: {@link GroupError#NONE} when it left. */
    public record Left(String memberId, String groupInstanceId, GroupError error) {}
}
