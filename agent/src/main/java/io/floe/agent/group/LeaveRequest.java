package io.floe.agent.group;

import java.util.List;
import java.util.Objects;

/**
 * A LeaveGroup: one member leaving, or (v3+) several, possibly named only by instance id when an
 * administrator removes static members.
 *
 * @param groupId the group
 * @param members the members that leave
 */
public record LeaveRequest(String groupId, List<Leaving> members) {

    public LeaveRequest {
        Objects.requireNonNull(groupId, "groupId");
        members = List.copyOf(members);
    }

    /**
     * One leaving member.
     *
     * @param memberId its member id, or empty to name a static member by instance id alone
     * @param groupInstanceId its instance id, or null
     * @param reason why it leaves, for logs; may be null
     */
    public record Leaving(String memberId, String groupInstanceId, String reason) {

        public Leaving {
            Objects.requireNonNull(memberId, "memberId");
        }
    }
}
