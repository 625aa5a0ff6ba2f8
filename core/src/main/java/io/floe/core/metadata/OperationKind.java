package io.floe.core.metadata;

/**
 * What a metadata operation may do to the store, and so what a caller (or a decorator: faults,
 * metrics, retries, a network client) may assume when its answer is lost.
 */
public enum OperationKind {

    /** Changes nothing. A lost answer is retried. */
    READ,

    /**
     * Applying it again leaves the store as one application does (an allocation only uses up a value
     * nobody holds; a lease acquisition by its holder renews it). A lost answer is retried.
     */
    IDEMPOTENT_WRITE,

    /**
     * Applies only while a condition it checks in its transaction holds: a registration, a lease epoch,
     * the rows a plan read, a name being free or taken. A retry can find that condition consumed by its
     * own first attempt, so a lost answer is unknown: the operation may have applied. Callers treat it so
     * (never delete what it might reference, re-check, or let the next round read afresh); results with
     * an {@code Unknown} case ({@link CommitOutcome.Unknown}, {@link RewriteOutcome.Unknown}) say it in
     * their type, the others as a {@link MetadataStoreException}.
     */
    FENCED_WRITE;

    /** Whether the operation may change the store. */
    public boolean mutates() {
        return this != READ;
    }
}
