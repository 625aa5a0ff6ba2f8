package io.floe.simulation;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.ConsumerOffsets;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.Transactions;
import io.floe.core.transaction.TransactionDescription;
import java.util.List;
import java.util.Map;

/**
 * What the metadata store keeps after a month, once the clock has passed every horizon and key
 * compaction has cleaned three times, {@code delete.retention.ms} apart:
 *
 * <ul>
 *   <li>MetadataRowsBounded: a partition's rows (batches, transaction markers, producer states) are
 *       bounded by its live data, never a number that grows with the transactions ever run. For the
 *       compacted changelog: the entries Kafka's active segment may still hold (never cleaned: see
 *       {@link #activeWindow}) and below it a batch and its transaction's marker per key (the key's
 *       newest record there); for the topics whose every record is past retention, none;
 *   <li>StateExpires: no transactional id and no group's offsets are left, all idle for longer than
 *       their expiration (seven days).
 * </ul>
 */
final class MetadataRows {

    private MetadataRows() {}

    /** Checks the app's partitions and the store's ids and groups; records the largest count in {@code figures}. */
    static void check(
            LogReads reads,
            Transactions transactions,
            ConsumerOffsets offsets,
            StreamsApp app,
            History history,
            Map<String, Long> figures) {
        long largest = 0;
        long windows = 0;
        for (TopicPartition tp : app.partitions()) {
            List<LogEntry> entries = reads.entries(List.of(new BatchesQuery(tp, 0, Integer.MAX_VALUE)))
                    .get(0);
            long markers =
                    entries.stream().filter(TransactionMarker.class::isInstance).count();
            long batches = entries.size() - markers;
            long producers = reads.producers(tp).size();
            long rows = batches + markers + producers;
            largest = Math.max(largest, rows);
            boolean compacted = tp.topic().equals(StreamsApp.CHANGELOG);
            long keys = compacted ? app.checker().keys(tp.partition()) : 0;
            long active = compacted ? activeWindow(entries, StreamsApp.SEGMENT_MS) : 0;
            windows = Math.max(windows, active);
            if (rows > active + 2 * keys) {
                history.violation(
                        "MetadataRowsBounded",
                        tp + " keeps " + rows + " metadata rows (" + batches + " batches, " + markers + " markers, "
                                + producers + " producer states) for " + keys + " keys"
                                + (compacted ? " and " + active + " entries of the active segment" : "")
                                + ", after " + app.committedTransactions()
                                + " committed transactions of the application"
                                + (compacted ? " (cleanup.policy=compact)" : " whose every record is past retention"));
            }
        }
        figures.put("rows max", largest);
        figures.put("active segment rows max", windows);
        List<String> ids = transactions.transactions().stream()
                .map(TransactionDescription::transactionalId)
                .toList();
        if (!ids.isEmpty()) {
            history.violation(
                    "StateExpires",
                    ids.size() + " transactional ids are kept, idle past transactional.id.expiration.ms: " + ids);
        }
        List<String> groups = offsets.offsetGroups();
        if (!groups.isEmpty()) {
            history.violation(
                    "StateExpires", "offsets of " + groups + " are kept, their groups empty past offsets.retention");
        }
    }

    /**
     * How many of a partition's entries (in offset order) Kafka's active segment may hold: those from
     * the first whose time is within {@code segmentMs} of the last entry's. Kafka rolls a segment when
     * an entry comes more than {@code segment.ms} after the segment's first, so the active segment's
     * first entry is no older than that; compaction never cleans it, and it is never removed, so it is
     * among the entries read here. A batch's time is its largest timestamp, a marker's its own.
     */
    static long activeWindow(List<LogEntry> entries, long segmentMs) {
        if (entries.isEmpty()) {
            return 0;
        }
        long since = time(entries.get(entries.size() - 1)) - segmentMs;
        for (int i = 0; i < entries.size(); i++) {
            if (time(entries.get(i)) >= since) {
                return entries.size() - i;
            }
        }
        return 0;
    }

    private static long time(LogEntry entry) {
        return entry instanceof TransactionMarker marker
                ? marker.timestamp()
                : ((BatchCoordinate) entry).maxTimestamp();
    }
}
