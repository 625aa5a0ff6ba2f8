package io.floe.agent.fetch;

import io.floe.agent.produce.CommittedObject;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.object.LocalFiles;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects of this agent's commits whose local files hold every batch's assigned base offset,
 * written right after the commit ({@link LocalFiles#writeBaseOffsets}): a fetch sends a run of
 * their batches from the file as it is, in one piece, as Kafka sends its log segments, instead of
 * each batch's offset from memory and the rest of it from the file. Only commits whose every batch
 * was appended with a known offset qualify (no unknown outcome, no duplicate). Bounded: the oldest
 * objects are forgotten, and their batches go out in two pieces each again. Thread-safe.
 */
final class OffsetsInFiles {

    private static final Logger LOGGER = LoggerFactory.getLogger(OffsetsInFiles.class);
    /** About 200 GB of recent objects at the default flush size; 100 bytes of heap each. */
    static final int OBJECTS_MAX = 65_536;

    /** The store's local files; null when it keeps none, and nothing is ever written. */
    private final LocalFiles files;

    private final Set<ObjectKey> written =
            Collections.newSetFromMap(Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<ObjectKey, Boolean> eldest) {
                    return size() > OBJECTS_MAX;
                }
            }));

    OffsetsInFiles(ObjectStore objects) {
        this.files = objects.localFiles().orElse(null);
    }

    /** Writes the offsets of {@code committed} into its object's file, when every batch of it is known. */
    void write(CommittedObject committed) {
        List<CommittedObject.Appended> appended = committed.appended();
        if (files == null || appended.isEmpty() || !committed.stalePartitions().isEmpty()) {
            return;
        }
        ObjectKey key = appended.get(0).batch().object();
        long[] positions = new long[appended.size()];
        long[] offsets = new long[appended.size()];
        for (int i = 0; i < positions.length; i++) {
            BatchCoordinate batch = appended.get(i).batch();
            if (!batch.object().equals(key)) {
                return; // one commit is one object; anything else is not ours to judge
            }
            positions[i] = batch.range().position();
            offsets[i] = batch.baseOffset();
        }
        try {
            files.writeBaseOffsets(key, positions, offsets);
            written.add(key);
        } catch (RuntimeException e) {
            // Fetches then send each batch's offset from memory, as for any other object.
            LOGGER.debug("cannot write base offsets into object={}: {}", key, e.toString());
        }
    }

    /** Whether every batch of the object that this agent committed holds its assigned offset in the file. */
    boolean contains(ObjectKey key) {
        return written.contains(key);
    }
}
