package io.floe.core.metadata;

/** How a batch takes part in its producer's transaction, which the commit checks in the store. */
public enum TransactionalAppend {
    /** Not transactional. */
    NONE,
    /**
     * Transactional, from a client of transaction version 1: the partition must already be in the
     * producer's open transaction (AddPartitionsToTxn), else the batch is refused.
     */
    IN_TRANSACTION,
    /**
     * Transactional, from a client of transaction version 2 (KIP-890): the append adds the partition to
     * the producer's transaction, beginning one when none is open.
     */
    JOINS_TRANSACTION;

    public boolean transactional() {
        return this != NONE;
    }
}
