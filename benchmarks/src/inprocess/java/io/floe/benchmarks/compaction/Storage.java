package io.floe.benchmarks.compaction;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.StorageStats;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectStore;
import java.util.List;

/**
 * What storage holds at one moment: committed objects and their bytes as the metadata store counts them, and
 * the objects under {@code segments/} the object store lists (these include inputs waiting out the delete
 * delay).
 */
record Storage(long committedObjects, long committedBytes, long pendingDeletions, long storedObjects,
        long storedBytes) {

    private static final String SEGMENT_PREFIX = "segments/";

    static Storage of(MetadataStore metadata, ObjectStore objects) {
        StorageStats stats = metadata.storageStats();
        List<ObjectInfo> stored = objects.list(SEGMENT_PREFIX);
        return new Storage(stats.committedObjects(), stats.committedBytes(), stats.pendingDeletions(), stored.size(),
                stored.stream().mapToLong(ObjectInfo::sizeBytes).sum());
    }
}
