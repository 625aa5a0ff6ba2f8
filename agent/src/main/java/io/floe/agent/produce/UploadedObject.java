package io.floe.agent.produce;

import io.floe.core.metadata.BatchAppend;
import io.floe.core.object.ObjectKey;
import java.util.List;

/**
 * A flush written to the object store: its key and size, and its batches in the order they lie in
 * the object ({@code appends} and {@code batches} match index for index).
 */
record UploadedObject(ObjectKey key, long sizeBytes, List<PendingAppend> appends, List<BatchAppend> batches) {}
