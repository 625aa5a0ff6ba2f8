package io.floe.core.transaction;

/** Why the store refused a transaction operation; the Kafka layer maps each to the client's error. */
public enum TransactionError {
    /** The request's epoch is older than the transactional id's: a newer producer fenced it. */
    PRODUCER_FENCED,
    /** The request's epoch is newer than the stored one (a client bug or a lost store). */
    INVALID_PRODUCER_EPOCH,
    /** The transactional id has no producer, or another producer id than the request's. */
    INVALID_PRODUCER_ID_MAPPING,
    /** The operation does not fit the transaction's state (ending one that is not open, for example). */
    INVALID_TXN_STATE,
    /** A partition named by the operation does not exist. */
    UNKNOWN_TOPIC_OR_PARTITION,
    /**
     * TxnOffsetCommit: the group's coordinator lease is no longer held by the agent that checked the
     * member (another agent took the group): the client looks the coordinator up again.
     */
    NOT_COORDINATOR
}
