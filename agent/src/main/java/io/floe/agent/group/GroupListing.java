package io.floe.agent.group;

/**
 * One group as ListGroups shows it.
 *
 * @param groupId the group
 * @param protocolType its protocol type, empty for groups that only hold committed offsets
 * @param state its state
 */
public record GroupListing(String groupId, String protocolType, GroupState state) {
}
