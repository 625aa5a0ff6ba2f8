package io.floe.agent.group;

import java.util.List;

/**
 * One group as DescribeGroups shows it. A group the coordinator does not know is {@link GroupState#DEAD}.
 *
 * @param groupId the group
 * @param state its state
 * @param protocolType its protocol type, empty if none
 * @param protocolName its selected protocol while Stable, empty otherwise
 * @param members its members, in join order
 */
public record GroupDescription(
        String groupId, GroupState state, String protocolType, String protocolName, List<MemberDescription> members) {

    public GroupDescription {
        members = List.copyOf(members);
    }

    static GroupDescription dead(String groupId) {
        return new GroupDescription(groupId, GroupState.DEAD, "", "", List.of());
    }
}
