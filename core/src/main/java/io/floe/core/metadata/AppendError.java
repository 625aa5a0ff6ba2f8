package io.floe.core.metadata;

/** Why a commit refused one batch. */
public enum AppendError {
    /** The topic was deleted (or re-created under a new id) or the partition does not exist. */
    UNKNOWN_TOPIC_OR_PARTITION,
    /** The batch's sequence does not follow the producer's last stored sequence for the partition. */
    OUT_OF_ORDER_SEQUENCE,
    /** The producer's epoch is older than one already seen for this producer id: it is fenced. */
    PRODUCER_FENCED,
    /** Not appended because the object could not be committed (see the commit outcome). */
    NOT_COMMITTED
}
