package io.floe.agent.group;

/**
 * The classic protocol's group states, named as Kafka names them to clients.
 *
 * <pre>
 * Empty ──join──▶ PreparingRebalance ──all joined / rebalance timeout──▶ CompletingRebalance
 *   ▲                    ▲                                                    │ leader's SyncGroup
 *   └──last member gone──┴──────────── join, leave, session timeout ◀── Stable ◀┘
 * </pre>
 * Any state goes to Dead when the group is deleted.
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String label;

    GroupState(String label) {
        this.label = label;
    }

    /** The name Kafka shows clients ({@code DescribeGroups}, {@code ListGroups}). */
    public String label() {
        return label;
    }
}
