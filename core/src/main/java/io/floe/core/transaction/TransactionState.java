package io.floe.core.transaction;

/**
 * Where a transactional id's current transaction stands. Floe ends a transaction in one metadata
 * transaction (markers, offsets and state together), so its stored states go from {@link #ONGOING}
 * straight to {@link #COMPLETE_COMMIT} or {@link #COMPLETE_ABORT}: the decision and the completion are
 * the same write. The prepare states exist for clients that filter by them and are never stored.
 */
public enum TransactionState {
    EMPTY("Empty"),
    ONGOING("Ongoing"),
    PREPARE_COMMIT("PrepareCommit"),
    PREPARE_ABORT("PrepareAbort"),
    COMPLETE_COMMIT("CompleteCommit"),
    COMPLETE_ABORT("CompleteAbort"),
    DEAD("Dead"),
    PREPARE_EPOCH_FENCE("PrepareEpochFence");

    private final String kafkaName;

    TransactionState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** The name Kafka's DescribeTransactions and ListTransactions use. */
    public String kafkaName() {
        return kafkaName;
    }

    /** Whether a new transaction may begin from this state (no transaction is open). */
    public boolean idle() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }
}
