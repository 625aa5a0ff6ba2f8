package io.floe.core.metadata;

import io.floe.core.object.ObjectKey;
import java.time.Instant;

/**
 * An object no batch row points to any more, to be deleted from the object store once
 * {@code deleteAfter} has passed (fetches planned before it lost its last reference may still be
 * reading it until then). {@code reason} says how it lost its references, for logs and metrics.
 */
public record ObjectDeletion(ObjectKey key, Instant deleteAfter, Reason reason) {

    public enum Reason {
        /** Its batches were moved into a compacted object, or removed by key compaction. */
        COMPACTED,
        /** Retention, DeleteRecords or topic deletion removed its last batch. */
        UNREFERENCED,
        /** Registered but never committed within the grace period (an agent died or gave up mid-upload). */
        ORPHAN
    }
}
