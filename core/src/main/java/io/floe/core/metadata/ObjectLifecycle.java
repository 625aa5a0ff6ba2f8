package io.floe.core.metadata;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.object.ObjectKey;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The metadata role of objects' lives after their commit (DESIGN §5): compaction's inputs and swap,
 * the orphan sweep's fence, scheduled deletions, and the audits. Follows the
 * {@linkplain io.floe.core.metadata package contract}; each method's kind is its {@link MetadataOperation}.
 */
public interface ObjectLifecycle {

    /** Committed objects smaller than {@code sizeBelowBytes} and registered before the given time, oldest first. */
    List<StoredObject> smallObjects(long sizeBelowBytes, Instant registeredBefore, int max);

    /** Every batch row pointing into {@code objects}, ordered by object then byte position. */
    List<BatchCoordinate> batchesIn(Collection<ObjectKey> objects);

    /**
     * Compaction's and key compaction's swap, in one transaction: consumes the output's registration
     * (when there is an output), points every moved batch row at its new range, length and max
     * timestamp, deletes every removed batch row (compare-and-swap: each moved or removed row must
     * still point at the object, position and length the plan read, or nothing applies), and
     * schedules objects that lost their last reference for deletion after {@code deleteAfter}. Offsets
     * and markers never change: a removed row leaves a gap, and reads from an offset in it start at
     * the next batch. Fenced (by the registration and the rows): a lost answer is
     * {@link RewriteOutcome.Unknown}.
     */
    RewriteOutcome rewrite(ObjectRewrite rewrite, Instant deleteAfter);

    /**
     * The orphan sweep's fence (DESIGN §3 step 7), in one transaction: registrations made before
     * {@code registeredBefore} and never committed are scheduled for deletion now (a commit that comes
     * later is rejected), and committed objects no batch row points to any more (their topic was
     * deleted) after {@code deleteAfter}. Returns how many objects it scheduled. Idempotent.
     */
    int scheduleUnreferenced(Instant registeredBefore, Instant now, Instant deleteAfter);

    /** Deletions due at {@code now}, soonest first, at most {@code max}. */
    List<ObjectDeletion> dueDeletions(Instant now, int max);

    /** Forgets scheduled deletions whose objects are gone from the object store. Idempotent. */
    void forgetDeletions(Collection<ObjectKey> deleted);

    /** Those of {@code keys} the store has no row for: neither registered, committed nor scheduled for deletion. */
    Set<ObjectKey> unknownObjects(Collection<ObjectKey> keys);

    /** Counts and bytes of the objects by state, for operators. */
    StorageStats storageStats();

    /**
     * An audit, in one consistent read: every object whose reference count differs from the number
     * of batch rows pointing into it, and every key batch rows point at without an object row, by
     * object key. Empty while the counts are exact, which every write must keep them under any
     * concurrency; tests and operators check it after concurrent maintenance.
     */
    List<ReferenceMismatch> referenceMismatches();
}
