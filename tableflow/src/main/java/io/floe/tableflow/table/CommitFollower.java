package io.floe.tableflow.table;

import io.floe.core.topic.Topic;

/**
 * Work that follows a table's commits on the agent that holds the table's lease (the change topic):
 * told after each round and of the lease's comings and goings, on the Tableflow thread. Implementations
 * never throw: they count and log their own failures, so the table's rounds go on.
 */
public interface CommitFollower {

    /** Follows nothing. */
    CommitFollower NONE = new CommitFollower() {
        @Override
        public boolean follow(Topic topic, boolean committed) {
            return false;
        }

        @Override
        public void leaseTaken(String topic) {}

        @Override
        public void released(String topic) {}
    };

    /**
     * After a round of {@code topic}'s table under its lease; {@code committed} when the round committed a
     * snapshot, a hint only: a round whose commit applied but whose answer was lost failed, and the next
     * round commits nothing, so what follows the table compares the table's state with its own. Returns
     * whether work is left that should not wait for the next commit interval.
     */
    boolean follow(Topic topic, boolean committed);

    /** This agent took the table's lease: what it knew of the table may be stale. */
    void leaseTaken(String topic);

    /** This agent no longer holds the table's lease (lost, released, table turned off or agent stopping). */
    void released(String topic);

    /**
     * The topic's table is off (or the topic gone): what the follower keeps for it beyond any one agent
     * (a retention hold) may go. Told by whichever agent notices, also of a table it never held.
     */
    default void removed(String topic) {}
}
