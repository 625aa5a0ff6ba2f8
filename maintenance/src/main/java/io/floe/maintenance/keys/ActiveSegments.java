package io.floe.maintenance.keys;

import io.floe.core.log.LogEntry;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.LogRetention;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The emulated active segment of each compacted partition ({@link ActiveSegment}), kept in this job's
 * memory between rounds and read further as the log grows: a round reads only the entries appended
 * since the last, at most {@link #ENTRIES_PER_ROUND}. A roll is recorded in the store
 * ({@link LogRetention#rollSegment}) before any pass may clean up to it, and a new holder of the job
 * starts from the recorded segment: the entries from there on are as they were appended, so it finds
 * the same rolls. Reading only part of what was appended is safe: the segment can only move forward.
 */
final class ActiveSegments {

    /** Entries one round reads at most per partition (an agent that took the job over reads the rest later). */
    static final int ENTRIES_PER_ROUND = 200_000;

    private static final int PAGE_ENTRIES = 1000;

    private final LogReads reads;
    private final LogRetention retention;
    private final Map<PartitionId, ActiveSegment> segments = new HashMap<>();

    ActiveSegments(LogReads reads, LogRetention retention) {
        this.reads = reads;
        this.retention = retention;
    }

    /** The partition's active segment after the entries appended since the last call. */
    ActiveSegment advance(PartitionId id, TopicPartition tp, ActiveSegment.Limits limits) {
        ActiveSegment segment = segments.remove(id);
        if (segment == null) {
            segment = ActiveSegment.at(retention.activeSegment(tp));
        }
        long recorded = segment.baseOffset();
        int read = 0;
        List<LogEntry> page;
        while (read < ENTRIES_PER_ROUND
                && !(page = reads.entries(List.of(new BatchesQuery(tp, segment.nextOffset(), PAGE_ENTRIES)))
                                .get(0))
                        .isEmpty()) {
            long before = segment.nextOffset();
            for (LogEntry entry : page) {
                segment.append(entry, limits);
            }
            read += page.size();
            if (segment.nextOffset() == before) {
                break;
            }
        }
        if (segment.baseOffset() > recorded) {
            // Recorded first: a pass may clean below it only once a new holder would find it too.
            retention.rollSegment(tp, segment.baseOffset());
        }
        segments.put(id, segment);
        return segment;
    }

    /** Forgets the partitions not in {@code live} (topics deleted or no longer compacted). */
    void retainAll(Set<PartitionId> live) {
        segments.keySet().retainAll(live);
    }
}
