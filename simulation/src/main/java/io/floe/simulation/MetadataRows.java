package io.floe.simulation;

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
 * compaction has cleaned twice, {@code delete.retention.ms} apart:
 *
 * <ul>
 *   <li>MetadataRowsBounded: a partition's rows (batches, transaction markers, producer states) are
 *       bounded by its live data: for the compacted changelog its live keys plus {@link #SLACK}, for
 *       the topics whose every record is past retention {@link #SLACK}; never a number that grows with
 *       the transactions ever run;
 *   <li>StateExpires: no transactional id and no group's offsets are left, all idle for longer than
 *       their expiration (seven days).
 * </ul>
 */
final class MetadataRows {

    /**
     * Rows a partition may keep beyond its live keys: the log's last batch (never cleaned, as Kafka's
     * active segment), its marker, and a few markers of the last transactions whose cleaning waits.
     */
    static final int SLACK = 6;

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
            long live = compacted ? app.checker().liveKeys(tp.partition()) : 0;
            if (rows > live + SLACK) {
                history.violation(
                        "MetadataRowsBounded",
                        tp + " keeps " + rows + " metadata rows (" + batches + " batches, " + markers + " markers, "
                                + producers + " producer states) for " + live + " live keys, after "
                                + app.committedTransactions() + " committed transactions of the application"
                                + (compacted ? " (cleanup.policy=compact)" : " whose every record is past retention"));
            }
        }
        figures.put("rows max", largest);
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
}
