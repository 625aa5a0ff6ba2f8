package io.floe.agent.fetch;

import io.floe.agent.batch.StoredBatch;
import io.floe.agent.cache.ObjectCache;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.core.topic.UnknownTopicException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans and performs the reads of one fetch: picks the batches within the byte limits, merges
 * neighbouring ranges of one object into one read, serves them from the cache or the object store,
 * verifies batches read from the store, and patches each batch's base offset in.
 */
final class FetchReader {

    private static final Logger LOGGER = LoggerFactory.getLogger(FetchReader.class);
    private static final int BASE_OFFSET_POSITION = 0;

    private final PartitionLogs logs;
    private final ObjectStore objects;
    private final ObjectCache cache;
    private final Counter bytesFromCache;
    private final Counter bytesFromStore;
    private final Counter corruptBatches;

    FetchReader(PartitionLogs logs, ObjectStore objects, ObjectCache cache, MeterRegistry meters) {
        this.logs = logs;
        this.objects = objects;
        this.cache = cache;
        this.bytesFromCache = Counter.builder("floe.fetch.read.bytes").tag("source", "cache").register(meters);
        this.bytesFromStore = Counter.builder("floe.fetch.read.bytes").tag("source", "object-store").register(meters);
        this.corruptBatches = Counter.builder("floe.fetch.corrupt.batches")
                .description("Batches read from the object store that failed their CRC").register(meters);
    }

    /** True when the fetch should be answered now: min_bytes reached, or a partition has an error. */
    boolean satisfied(FetchQuery query) {
        long available = 0;
        for (PartitionQuery partition : query.partitions()) {
            LogOffsets offsets;
            try {
                offsets = logs.offsets(partition.topicPartition());
            } catch (UnknownTopicException e) {
                return true;
            }
            if (!offsets.contains(partition.fetchOffset())) {
                return true;
            }
            long bytes = logs.log(partition.topicPartition()).bytesAvailableFrom(partition.fetchOffset());
            available += Math.min(bytes, partition.maxBytes());
            if (available >= Math.max(1, query.minBytes())) {
                return true;
            }
        }
        return false;
    }

    /** Reads the fetch's answer. Blocks on object-store reads. */
    FetchResult read(FetchQuery query) {
        List<Planned> plan = plan(query);
        Map<ObjectKey, List<ByteRange>> wanted = new HashMap<>();
        for (Planned planned : plan) {
            for (BatchCoordinate batch : planned.batches) {
                wanted.computeIfAbsent(batch.object(), k -> new ArrayList<>()).add(batch.range());
            }
        }
        Map<ObjectKey, Loaded> loaded = new HashMap<>();
        wanted.forEach((key, ranges) -> loaded.put(key, load(key, ranges)));
        List<PartitionResult> results = new ArrayList<>(plan.size());
        for (Planned planned : plan) {
            results.add(planned.error != null ? planned.error : assemble(planned, loaded));
        }
        return new FetchResult(results);
    }

    private List<Planned> plan(FetchQuery query) {
        List<Planned> plan = new ArrayList<>();
        long budget = Math.max(0, query.maxBytes());
        boolean anyData = false;
        for (PartitionQuery partition : query.partitions()) {
            Planned planned = planPartition(partition, anyData ? Math.min(budget, partition.maxBytes())
                    : Math.max(1, Math.min(budget, partition.maxBytes())), anyData);
            for (BatchCoordinate batch : planned.batches) {
                budget -= batch.range().length();
            }
            anyData |= !planned.batches.isEmpty();
            plan.add(planned);
        }
        return plan;
    }

    private Planned planPartition(PartitionQuery partition, long bytesMax, boolean anyData) {
        LogOffsets offsets;
        try {
            offsets = logs.offsets(partition.topicPartition());
        } catch (UnknownTopicException e) {
            return Planned.error(new PartitionResult.Error(partition.topicPartition(),
                    FetchError.UNKNOWN_TOPIC_OR_PARTITION, LogOffsets.EMPTY, e.getMessage()));
        }
        long fetchOffset = partition.fetchOffset();
        if (!offsets.contains(fetchOffset)) {
            return Planned.error(new PartitionResult.Error(partition.topicPartition(), FetchError.OFFSET_OUT_OF_RANGE,
                    offsets, "fetch offset " + fetchOffset + " is outside [" + offsets.logStartOffset() + ", "
                            + offsets.highWatermark() + "] of " + partition.topicPartition()));
        }
        if (fetchOffset == offsets.highWatermark() || bytesMax <= 0) {
            return new Planned(partition, offsets, List.of(), null);
        }
        List<BatchCoordinate> batches = logs.batches(partition.topicPartition(), fetchOffset, bytesMax);
        // Past the first partition with data, a batch larger than what is left waits for the next fetch.
        if (anyData && !batches.isEmpty() && batches.get(0).range().length() > bytesMax) {
            batches = List.of();
        }
        return new Planned(partition, offsets, batches, null);
    }

    /** The bytes of the wanted ranges of one object: merged, from the cache when possible. */
    private Loaded load(ObjectKey key, List<ByteRange> ranges) {
        Map<ByteRange, ByteBuffer> found = new LinkedHashMap<>();
        List<ByteRange> missing = new ArrayList<>();
        for (ByteRange range : ranges) {
            cache.get(key, range).ifPresentOrElse(bytes -> {
                found.put(range, bytes);
                bytesFromCache.increment(range.length());
            }, () -> missing.add(range));
        }
        if (missing.isEmpty()) {
            return new Loaded(found, null);
        }
        try {
            for (ByteRange merged : merge(missing)) {
                ByteBuffer bytes = objects.get(key, merged);
                bytesFromStore.increment(merged.length());
                cache.put(key, merged.position(), bytes);
                for (ByteRange range : missing) {
                    if (range.position() >= merged.position() && range.end() <= merged.end()) {
                        found.put(range, bytes.slice((int) (range.position() - merged.position()), range.length()));
                    }
                }
            }
            return new Loaded(found, null);
        } catch (ObjectStoreException e) {
            LOGGER.warn("Fetch read failed object={} ranges={}: {}", key, missing.size(), e.getMessage());
            return new Loaded(Map.of(), e);
        }
    }

    private PartitionResult assemble(Planned planned, Map<ObjectKey, Loaded> loaded) {
        int size = 0;
        for (BatchCoordinate batch : planned.batches) {
            size += batch.range().length();
        }
        ByteBuffer records = ByteBuffer.allocate(size);
        for (BatchCoordinate batch : planned.batches) {
            Loaded object = loaded.get(batch.object());
            if (object.failure() != null) {
                return storageError(planned, object.failure().getMessage());
            }
            ByteBuffer bytes = object.ranges().get(batch.range());
            if (!valid(bytes, batch)) {
                return storageError(planned, "batch at offset " + batch.baseOffset() + " in " + batch.object()
                        + " failed its CRC check");
            }
            int start = records.position();
            records.put(bytes.duplicate());
            records.putLong(start + BASE_OFFSET_POSITION, batch.baseOffset());
        }
        records.flip();
        return new PartitionResult.Data(planned.partition.topicPartition(), planned.offsets, records);
    }

    private boolean valid(ByteBuffer bytes, BatchCoordinate batch) {
        if (bytes.remaining() == batch.range().length() && StoredBatch.isIntact(bytes)) {
            return true;
        }
        corruptBatches.increment();
        LOGGER.error("Corrupt batch topicPartition={} baseOffset={} object={} range={}",
                batch.topicPartition(), batch.baseOffset(), batch.object(), batch.range());
        return false;
    }

    private static PartitionResult storageError(Planned planned, String message) {
        return new PartitionResult.Error(planned.partition.topicPartition(), FetchError.STORAGE_ERROR,
                planned.offsets, message);
    }

    /** Sorted, with touching or overlapping ranges merged into one read. */
    static List<ByteRange> merge(List<ByteRange> ranges) {
        List<ByteRange> sorted = new ArrayList<>(ranges);
        sorted.sort((a, b) -> Long.compare(a.position(), b.position()));
        List<ByteRange> merged = new ArrayList<>();
        for (ByteRange range : sorted) {
            int last = merged.size() - 1;
            if (last >= 0 && merged.get(last).touchesOrOverlaps(range)) {
                merged.set(last, merged.get(last).span(range));
            } else {
                merged.add(range);
            }
        }
        return merged;
    }

    /** The bytes read for one object, by requested range, or why they could not be read. */
    private record Loaded(Map<ByteRange, ByteBuffer> ranges, ObjectStoreException failure) {}

    private record Planned(PartitionQuery partition, LogOffsets offsets, List<BatchCoordinate> batches,
            PartitionResult.Error error) {
        static Planned error(PartitionResult.Error error) {
            return new Planned(null, null, List.of(), error);
        }
    }
}
