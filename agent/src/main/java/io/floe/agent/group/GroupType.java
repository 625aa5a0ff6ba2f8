package io.floe.agent.group;

/** The rebalance protocol of a group, named as ListGroups (v5) names it. */
public enum GroupType {
    /** JoinGroup, SyncGroup, Heartbeat and LeaveGroup, with client-side assignment. */
    CLASSIC("classic"),
    /** KIP-848: ConsumerGroupHeartbeat with server-side assignment. */
    CONSUMER("consumer");

    private final String label;

    GroupType(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
