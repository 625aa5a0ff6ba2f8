package io.floe.agent.group.consumer;

/**
 * A consumer group's state, derived from its members and epochs, named as Kafka shows it to clients.
 */
public enum ConsumerGroupState {
    /** No members. */
    EMPTY("Empty"),
    /** The group epoch moved past the target assignment epoch: a new target is due. */
    ASSIGNING("Assigning"),
    /** Some member has not reached the target assignment yet. */
    RECONCILING("Reconciling"),
    /** Every member owns its target assignment. */
    STABLE("Stable"),
    /** Deleted, or handed over to the classic protocol. */
    DEAD("Dead");

    private final String label;

    ConsumerGroupState(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
