package io.floe.core.metadata;

import io.floe.core.object.ObjectKey;
import java.time.Instant;
import java.util.List;

/**
 * The metadata role of the produce path: producer ids, upload registrations and commits. Follows the
 * {@linkplain io.floe.core.metadata package contract}; each method's kind is its {@link MetadataOperation}.
 */
public interface LogAppends {

    /**
     * A producer id never handed out before (ids are unique across the cluster and across restarts).
     * Idempotent in effect: a retry after a lost answer only uses up an id nobody holds.
     */
    long allocateProducerId();

    /**
     * Records that {@code object} is about to be uploaded by {@code agentId}. This is the fence that
     * makes orphan cleanup safe: cleanup only deletes objects whose registration it removed first.
     * Fenced (the key must be new): after a lost answer the registration may exist, and the orphan
     * sweep removes it once it is old.
     */
    void registerUpload(ObjectKey object, String agentId, Instant registeredAt);

    /**
     * Registers several uploads in one transaction (one durable write instead of one each), as agents
     * reserve keys ahead of their flushes. Fenced, as {@link #registerUpload}.
     */
    void registerUploads(List<ObjectKey> objects, String agentId, Instant registeredAt);

    /**
     * Commits the batches of one uploaded object in one transaction. Assigns offsets densely
     * ({@code baseOffset = highWatermark}, then the watermark advances by the record count), checks
     * producer sequences in batch order, and consumes the upload's registration: a commit for an object
     * that was never registered, or whose registration was swept, is {@link CommitOutcome.Rejected}. A
     * failure whose outcome is not known (the connection broke after the statement was sent) is
     * {@link CommitOutcome.Unknown}; the store never reports {@code Committed} for a commit it did not
     * apply, nor {@code Rejected} for one it did. Committing an object again (a retry after
     * {@code Unknown}) appends nothing: the outcome is {@code Committed}, with
     * {@link AppendResult.Duplicate} at the original offset for each batch the first commit appended.
     * Concurrent commits to one partition are serialized by the store. Fenced (by the registration).
     */
    CommitOutcome commit(ObjectCommit commit);
}
