package io.floe.simulation;

/**
 * A deliberately broken system, to show the checkers can fail: each control removes one guarantee,
 * and the simulation must report the invariant that guarantee protects. {@link #NONE} is the real system.
 */
public enum Control {
    /** The real system. */
    NONE,
    /** The object store now and then answers a PUT as done without storing it (an acknowledged write lost). */
    LOSSY_OBJECT_STORE,
    /** The producers send without a producer id (idempotence off), so a retry after a lost answer appends again. */
    PRODUCERS_WITHOUT_IDEMPOTENCE,
    /** Read_committed consumers return aborted batches too: they ignore the answers' aborted transactions. */
    READ_COMMITTED_IGNORES_ABORTED,
    /** Read_committed consumers fetch as read_uncommitted: up to the high watermark, open transactions included. */
    FETCH_IGNORES_LSO,
    /** The metadata store ends a transaction its client commits with abort markers, and answers it done. */
    COMMIT_STORED_AS_ABORT,
    /** Read_committed consumers return each producer's first transactional batch of an answer, passing its others. */
    READ_COMMITTED_SKIPS_LATER_BATCHES,
    /**
     * The stream threads take an offset answered UNSTABLE_OFFSET_COMMIT for none and start from the
     * beginning (a consumer that does not send require_stable), so input is processed again.
     */
    STREAMS_IGNORE_UNSTABLE_OFFSETS;

    /** Whether the control breaks a part of transactions, so every run it makes has transactional producers. */
    boolean transactional() {
        return this == READ_COMMITTED_IGNORES_ABORTED
                || this == FETCH_IGNORES_LSO
                || this == COMMIT_STORED_AS_ABORT
                || this == READ_COMMITTED_SKIPS_LATER_BATCHES;
    }
}
