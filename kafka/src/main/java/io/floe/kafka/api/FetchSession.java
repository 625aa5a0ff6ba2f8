package io.floe.kafka.api;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FetchSessionTopicIdException;
import org.apache.kafka.common.errors.InvalidFetchSessionEpochException;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One incremental fetch session: the partitions a client fetches, where it fetches them from, and
 * what it was last told about each, so an incremental response carries only partitions that have
 * records or changed markers or errors (as Kafka's {@code FetchSession}). Thread-safe.
 */
final class FetchSession {

    /** A partition in a session: by topic id from fetch v13, by topic name before. */
    record Key(Uuid topicId, String topicName, int partition) {}

    /** A partition to fetch and how. */
    record Entry(Key key, long fetchOffset, int maxBytes) {}

    private final int id;
    private final boolean usesTopicIds;
    private final Map<Key, Cached> partitions = new LinkedHashMap<>();
    private int nextEpoch = 1;

    FetchSession(int id, boolean usesTopicIds, List<Entry> entries) {
        this.id = id;
        this.usesTopicIds = usesTopicIds;
        entries.forEach(entry -> partitions.put(entry.key(), new Cached(entry.fetchOffset(), entry.maxBytes())));
    }

    int id() {
        return id;
    }

    boolean usesTopicIds() {
        return usesTopicIds;
    }

    /**
     * Applies an incremental request of epoch {@code requestEpoch}: adds or updates {@code changed},
     * drops {@code forgotten}, and moves on to the next epoch. Returns the partitions to fetch now, in
     * session order (empty when the session has none left).
     *
     * @throws InvalidFetchSessionEpochException when the epoch is not the one expected next
     * @throws FetchSessionTopicIdException when the request names topics differently from the session
     */
    synchronized List<Entry> update(
            int requestEpoch, boolean requestUsesTopicIds, List<Entry> changed, Collection<Key> forgotten) {
        if (requestEpoch != nextEpoch) {
            throw new InvalidFetchSessionEpochException(
                    "fetch session " + id + " expected epoch " + nextEpoch + ", got " + requestEpoch);
        }
        if (requestUsesTopicIds != usesTopicIds) {
            throw new FetchSessionTopicIdException("fetch session " + id + (usesTopicIds ? " uses" : " does not use")
                    + " topic ids, the request" + (requestUsesTopicIds ? " does" : " does not"));
        }
        for (Entry entry : changed) {
            Cached cached = partitions.get(entry.key());
            if (cached == null) {
                partitions.put(entry.key(), new Cached(entry.fetchOffset(), entry.maxBytes()));
            } else {
                cached.fetchOffset = entry.fetchOffset();
                cached.maxBytes = entry.maxBytes();
            }
        }
        forgotten.forEach(partitions::remove);
        nextEpoch = nextEpoch == Integer.MAX_VALUE ? 1 : nextEpoch + 1;
        List<Entry> entries = new ArrayList<>(partitions.size());
        partitions.forEach((key, cached) -> entries.add(new Entry(key, cached.fetchOffset, cached.maxBytes)));
        return entries;
    }

    synchronized boolean isEmpty() {
        return partitions.isEmpty();
    }

    /**
     * Remembers what the client is told about {@code key} and says whether an incremental response
     * must carry it. A partition that returned records moves to the end of the session, so a
     * response's size limit does not starve the partitions behind it.
     */
    synchronized boolean recordResponse(Key key, PartitionData data) {
        Cached cached = partitions.get(key);
        if (cached == null) {
            return true;
        }
        boolean hasRecords = data.records() != null && data.records().sizeInBytes() > 0;
        boolean mustRespond = hasRecords;
        if (data.errorCode() != Errors.NONE.code()) {
            // Forget the watermark, so the partition is sent again once the error clears.
            cached.highWatermark = -1;
            mustRespond = true;
        } else {
            if (cached.highWatermark != data.highWatermark()) {
                cached.highWatermark = data.highWatermark();
                mustRespond = true;
            }
            if (cached.logStartOffset != data.logStartOffset()) {
                cached.logStartOffset = data.logStartOffset();
                mustRespond = true;
            }
            if (cached.lastStableOffset != data.lastStableOffset()) {
                cached.lastStableOffset = data.lastStableOffset();
                mustRespond = true;
            }
        }
        if (hasRecords) {
            partitions.remove(key);
            partitions.put(key, cached);
        }
        return mustRespond;
    }

    /** What the session knows about one partition. */
    private static final class Cached {
        long fetchOffset;
        int maxBytes;
        long highWatermark = -1;
        long logStartOffset = -1;
        long lastStableOffset = -1;

        Cached(long fetchOffset, int maxBytes) {
            this.fetchOffset = fetchOffset;
            this.maxBytes = maxBytes;
        }
    }
}
