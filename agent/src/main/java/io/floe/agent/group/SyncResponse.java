package io.floe.agent.group;

/**
 * The answer to a SyncGroup, given once the leader's assignment arrived (or at once for errors).
 *
 * @param error why the sync failed, or {@link GroupError#NONE}
 * @param protocolType the group's protocol type; null on error
 * @param protocolName the group's selected protocol; null on error
 * @param assignment the member's assignment, empty on error
 */
public record SyncResponse(GroupError error, String protocolType, String protocolName, byte[] assignment) {

    static final byte[] NO_ASSIGNMENT = new byte[0];

    static SyncResponse failed(GroupError error) {
        return new SyncResponse(error, null, null, NO_ASSIGNMENT);
    }
}
