package io.floe.core.metadata;

import io.floe.core.object.ObjectKey;
import java.util.List;
import java.util.Objects;

/**
 * Everything one commit transaction appends: the batches of one uploaded object, in the order the
 * agent received them (the order matters for producer sequence checks).
 */
public record ObjectCommit(ObjectKey object, long objectSizeBytes, List<BatchAppend> batches) {

    public ObjectCommit {
        Objects.requireNonNull(object, "object");
        batches = List.copyOf(batches);
    }
}
