package io.floe.core.metadata;

/** Why a commit refused one batch. */
public enum AppendError {
    /** The topic was deleted (or re-created under a new id) or the partition does not exist. */
    UNKNOWN_TOPIC_OR_PARTITION,
    /** The batch's sequence does not follow the producer's last stored sequence for the partition. */
    OUT_OF_ORDER_SEQUENCE,
    /** The producer's epoch is older than one already seen for this producer id: it is fenced. */
    PRODUCER_FENCED,
    /**
     * A transactional batch that its producer's transaction does not admit: no transaction for its
     * producer id, the transaction not open, or (transaction version 1) its partition not added.
     */
    INVALID_TXN_STATE,
    /** Not appended because the object could not be committed (see the commit outcome). */
    NOT_COMMITTED
}
