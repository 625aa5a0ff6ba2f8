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
     * snapshot. Returns whether work is left that should not wait for the next commit interval.
     */
    boolean follow(Topic topic, boolean committed);

    /** This agent took the table's lease: what it knew of the table may be stale. */
    void leaseTaken(String topic);

    /** This agent no longer holds the table's lease (lost, released, table turned off or agent stopping). */
    void released(String topic);
}
