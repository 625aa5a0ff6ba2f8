package io.floe.agent.group;

/**
 * One group as ListGroups shows it.
 *
 * @param groupId the group
 * @param protocolType its protocol type, empty for groups that only hold committed offsets
 * @param state its state as Kafka names it (a {@link GroupState} label for classic groups, a
 *     {@link io.floe.agent.group.consumer.ConsumerGroupState} label for consumer groups)
 * @param type its protocol
 */
public record GroupListing(String groupId, String protocolType, String state, GroupType type) {

    /** A classic group. */
    public GroupListing(String groupId, String protocolType, GroupState state) {
        this(groupId, protocolType, state.label(), GroupType.CLASSIC);
    }
}
