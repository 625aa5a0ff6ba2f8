package io.floe.agent.produce;

import io.floe.core.metadata.BatchAppend;
import io.floe.core.object.ObjectKey;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A flush written to the object store: its key, its bytes (the copy the cache holds too), and its
 * batches in the order they lie in the object ({@code appends} and {@code batches} match index for
 * index).
 */
record UploadedObject(ObjectKey key, ByteBuffer bytes, List<PendingAppend> appends, List<BatchAppend> batches) {

    long sizeBytes() {
        return bytes.remaining();
    }
}
