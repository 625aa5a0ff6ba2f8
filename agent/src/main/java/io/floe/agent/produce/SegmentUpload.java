package io.floe.agent.produce;

import io.floe.agent.cache.ObjectCache;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.segment.SegmentWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Steps 3 and 4 of the produce protocol for one flush: take a registered key (the registration is
 * the fence that makes orphan cleanup safe), write the segment object create-only under it, and put it in the cache so tailing
 * consumers read it from memory. Blocking; runs on an upload thread.
 *
 * <p>A store that keeps objects as local files needs no copy in the cache: the page cache holds the
 * fresh file, and fetches send from it. Its segments are assembled in reused direct buffers instead,
 * which the file write takes without another copy, and no object-sized array is allocated per flush.
 */
final class SegmentUpload {

    private final RegisteredKeys keys;
    private final ObjectStore objects;
    private final ObjectCache cache;
    /** Direct buffers for segments written to local files; at most one per concurrent upload. */
    private final Queue<ByteBuffer> localBuffers;

    SegmentUpload(RegisteredKeys keys, ObjectStore objects, ObjectCache cache) {
        this.keys = keys;
        this.objects = objects;
        this.cache = cache;
        this.localBuffers = objects.localFiles().isPresent() ? new ConcurrentLinkedQueue<>() : null;
    }

    UploadedObject upload(Flush flush) {
        ObjectKey key = keys.take();
        List<PendingAppend> ordered = groupedByPartition(flush.appends());
        SegmentWriter writer = new SegmentWriter();
        List<BatchAppend> batches = new ArrayList<>(ordered.size());
        for (PendingAppend append : ordered) {
            ValidatedBatch batch = append.batch();
            ByteRange range = writer.append(
                    append.topicId(),
                    append.topicPartition().partition(),
                    batch.recordCount(),
                    batch.producer().producerId(),
                    batch.producer().producerEpoch(),
                    batch.producer().baseSequence(),
                    batch.maxTimestamp(),
                    batch.bytes());
            batches.add(new BatchAppend(
                    append.topicPartition(),
                    append.topicId(),
                    range,
                    batch.recordCount(),
                    batch.maxTimestamp(),
                    batch.producer(),
                    batch.transaction()));
        }
        int size = Math.toIntExact(writer.sizeBytes());
        if (localBuffers == null) {
            ByteBuffer object = writer.finish();
            objects.put(key, object.duplicate());
            cache.put(key, 0, object);
        } else {
            ByteBuffer buffer = localBuffer(size);
            try {
                objects.put(key, writer.finishInto(buffer));
            } finally {
                localBuffers.offer(buffer);
            }
        }
        return new UploadedObject(key, size, ordered, batches);
    }

    /** A pooled direct buffer of at least {@code size} bytes; one too small is dropped for a bigger one. */
    private ByteBuffer localBuffer(int size) {
        ByteBuffer buffer = localBuffers.poll();
        if (buffer != null && buffer.capacity() >= size) {
            return buffer;
        }
        // Rounded up to whole MiB, so objects growing a little do not allocate again each time.
        return ByteBuffer.allocateDirect(((size >> 20) + 1) << 20);
    }

    /** The appends grouped by partition, each partition's batches in arrival order. */
    private static List<PendingAppend> groupedByPartition(List<PendingAppend> appends) {
        Map<TopicPartition, List<PendingAppend>> byPartition = new LinkedHashMap<>();
        for (PendingAppend append : appends) {
            byPartition
                    .computeIfAbsent(append.topicPartition(), tp -> new ArrayList<>())
                    .add(append);
        }
        List<PendingAppend> ordered = new ArrayList<>(appends.size());
        byPartition.values().forEach(ordered::addAll);
        return ordered;
    }
}
