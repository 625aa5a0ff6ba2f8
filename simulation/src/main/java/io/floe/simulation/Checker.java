package io.floe.simulation;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.metadata.ObjectLifecycle;
import io.floe.core.metadata.ReferenceMismatch;
import io.floe.core.object.ObjectInfo;
import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Checks the invariants of spec/README.md on the shared stores themselves (not through any agent):
 * after every step the markers and the batch index (MonotoneMarkers, UniqueDenseOffsets,
 * NoDanglingReference), and now and then, and at the end, the whole log read back from the objects
 * (ConsistentRead, NoDuplicateAppend, NoAckedLoss, per-producer order) and the store's reference
 * counts audited (RefCountsExact).
 */
final class Checker {

    private final LogReads metadata;
    private final ObjectLifecycle lifecycle;
    private final LongSupplier logChanges;
    private final MemoryObjectStore objects;
    private final History history;
    private final List<TopicPartition> partitions;
    private final Set<String> retentionTopics;
    /** Partitions whose index is checked every step but whose log is read by a checker of its own. */
    private final Set<TopicPartition> indexOnly = new HashSet<>();
    /** Partitions of compacted topics: key compaction leaves gaps between batches and below the first. */
    private final Set<TopicPartition> compacted = new HashSet<>();

    private final Map<TopicPartition, LogOffsets> lastOffsets = new HashMap<>();
    private long logReads;
    private long indexChecks;
    private long checkedAtLogChanges = -1;
    private long checkedAtRewrites = -1;
    private long checkedAtDeletions = -1;
    private long excusedBelowLogStart;
    private long youngUnreferenced;
    private final TransactionChecker transactions;

    /** {@code logChanges}: a count of the metadata store's calls that may have changed the log. */
    Checker(
            LogReads metadata,
            ObjectLifecycle lifecycle,
            LongSupplier logChanges,
            MemoryObjectStore objects,
            History history,
            List<TopicPartition> partitions,
            Set<String> retentionTopics,
            TransactionChecker transactions) {
        this.transactions = transactions;
        this.metadata = metadata;
        this.lifecycle = lifecycle;
        this.logChanges = logChanges;
        this.objects = objects;
        this.history = history;
        this.partitions = new ArrayList<>(partitions);
        this.retentionTopics = new HashSet<>(retentionTopics);
    }

    /**
     * Checks {@code partitions} from now on too: their index every step, and, unless {@code indexOnly},
     * their log in every read. {@code retention}: their topic may move its log start.
     */
    void watch(List<TopicPartition> added, boolean indexOnlyPartitions, boolean retention, boolean compaction) {
        partitions.addAll(added);
        if (compaction) {
            compacted.addAll(added);
        }
        if (indexOnlyPartitions) {
            indexOnly.addAll(added);
        }
        if (retention) {
            added.forEach(tp -> retentionTopics.add(tp.topic()));
        }
    }

    long logReads() {
        return logReads;
    }

    long indexChecks() {
        return indexChecks;
    }

    /** How many acknowledged values the last log read excused, each because retention had removed it. */
    long excusedBelowLogStart() {
        return excusedBelowLogStart;
    }

    /**
     * The checks of every step: markers never go back; the index is dense and points at stored objects.
     * Skipped when the log did not change and no object was deleted since the last check (it still
     * holds: a new object alone changes no index); returns whether it ran.
     */
    boolean afterStep() {
        long deletions = objects.deletions();
        if (logChanges.getAsLong() == checkedAtLogChanges && deletions == checkedAtDeletions) {
            return false;
        }
        checkedAtLogChanges = logChanges.getAsLong();
        indexChecks++;
        // A partition's rows change only with its markers, or with a rewrite (compaction, retention,
        // counted by logRewrites); a row can dangle only after a delete. Else its index still holds.
        long rewrites = metadata.logRewrites();
        boolean everyIndex = rewrites != checkedAtRewrites || deletions != checkedAtDeletions;
        checkedAtRewrites = rewrites;
        checkedAtDeletions = deletions;
        for (TopicPartition tp : partitions) {
            LogOffsets now = metadata.offsets(tp);
            LogOffsets before = lastOffsets.put(tp, now);
            if (!everyIndex && now.equals(before)) {
                continue;
            }
            if (before != null
                    && (now.logStartOffset() < before.logStartOffset()
                            || now.highWatermark() < before.highWatermark())) {
                history.violation("MonotoneMarkers", tp + " went from " + before + " to " + now);
            }
            if (!retentionTopics.contains(tp.topic()) && now.logStartOffset() > 0) {
                history.violation(
                        "NoAckedLoss",
                        tp + " log start moved to " + now.logStartOffset() + " on a topic without retention");
            }
            List<LogEntry> rows = entries(tp);
            boolean gaps = compacted.contains(tp);
            long expected = -1;
            Map<Long, Long> openSince = new HashMap<>();
            for (LogEntry entry : rows) {
                if (entry instanceof TransactionMarker marker) {
                    if (expected >= 0 && (gaps ? marker.offset() < expected : marker.offset() != expected)) {
                        history.violation(
                                "UniqueDenseOffsets",
                                tp + " marker at " + marker.offset() + " follows an entry ending at " + (expected - 1));
                    }
                    expected = marker.nextOffset();
                    openSince.remove(marker.producerId());
                    continue;
                }
                BatchCoordinate row = (BatchCoordinate) entry;
                long producer = transactions.producerOf(row);
                if (producer >= 0) {
                    openSince.putIfAbsent(producer, row.baseOffset());
                }
                if (expected >= 0 && (gaps ? row.baseOffset() < expected : row.baseOffset() != expected)) {
                    history.violation(
                            "UniqueDenseOffsets",
                            tp + " batch at " + row.baseOffset() + " follows one ending at " + (expected - 1));
                }
                expected = row.nextOffset();
                if (!objects.contains(row.object())) {
                    history.violation(
                            "NoDanglingReference",
                            tp + " batch " + row.baseOffset() + ".." + row.lastOffset() + " points to missing object "
                                    + row.object());
                }
            }
            if (!rows.isEmpty()
                    && (expected != now.highWatermark()
                            || (!gaps && rows.get(0).baseOffset() > now.logStartOffset()))) {
                history.violation(
                        "UniqueDenseOffsets",
                        tp + " index covers " + rows.get(0).baseOffset() + ".." + (expected - 1)
                                + " but the markers are " + now);
            }
            if (rows.isEmpty() && now.logStartOffset() != now.highWatermark()) {
                history.violation("NoAckedLoss", tp + " has no batches but markers " + now);
            }
            transactions.checkStableOffset(tp, before, now, openSince);
        }
        return true;
    }

    private List<LogEntry> entries(TopicPartition tp) {
        return metadata.entries(List.of(new BatchesQuery(tp, 0, Integer.MAX_VALUE)))
                .get(0);
    }

    /**
     * Sees a commit's true outcome at the moment it returns: each value appended is observed at its
     * offset. Log reads run between steps, and a slow store call runs other tasks nested inside it
     * (World#await), so a commit and the retention that removes it can both happen between two log reads;
     * without this a value acknowledged as a duplicate there could not be placed (seed 404 once).
     */
    void committed(ObjectCommit commit, CommitOutcome outcome) {
        if (!(outcome instanceof CommitOutcome.Committed committed) || !objects.contains(commit.object())) {
            return; // nothing appended, or an upload the lossy store lost (the log reads report those rows)
        }
        for (int i = 0; i < commit.batches().size(); i++) {
            if (committed.results().get(i) instanceof AppendResult.Appended appended) {
                BatchAppend batch = commit.batches().get(i);
                ByteBuffer bytes = objects.get(commit.object(), batch.range());
                for (StoredBatch stored : StoredBatch.all(bytes)) {
                    for (StoredRecord record : stored.records()) {
                        history.observed(
                                new History.Position(
                                        batch.topicPartition(),
                                        appended.baseOffset() + (record.offset() - stored.baseOffset())),
                                History.valueOf(record),
                                "commit");
                    }
                }
            }
        }
    }

    /** Reads every partition's whole log from the objects and checks it against everything seen before. */
    void readLog() {
        logReads++;
        excusedBelowLogStart = 0;
        for (ReferenceMismatch mismatch : lifecycle.referenceMismatches()) {
            history.violation("RefCountsExact", mismatch.toString());
        }
        Map<String, History.Position> where = new HashMap<>();
        Map<TopicPartition, LogOffsets> markers = new HashMap<>();
        for (TopicPartition tp : partitions) {
            markers.put(tp, metadata.offsets(tp));
            if (indexOnly.contains(tp)) {
                continue;
            }
            Map<String, Long> lastNumberOfProducer = new HashMap<>();
            for (BatchCoordinate row : metadata.batches(tp, 0, Integer.MAX_VALUE)) {
                if (!objects.contains(row.object())) {
                    continue; // reported by afterStep
                }
                ByteBuffer bytes = objects.get(row.object(), row.range());
                for (StoredBatch batch : StoredBatch.all(bytes)) {
                    batch.ensureValid();
                    for (StoredRecord record : batch.records()) {
                        long offset = row.baseOffset() + (record.offset() - batch.baseOffset());
                        if (offset < markers.get(tp).logStartOffset()) {
                            continue;
                        }
                        String value = History.valueOf(record);
                        History.Position position = new History.Position(tp, offset);
                        history.observed(position, value, "checker");
                        History.Position other = where.put(value, position);
                        if (other != null) {
                            history.violation("NoDuplicateAppend", value + " stored at " + other + " and " + position);
                        }
                        String producer = producerOf(value);
                        long number = numberOf(value);
                        Long previous = lastNumberOfProducer.put(producer, number);
                        if (previous != null && previous >= number) {
                            history.violation(
                                    "ProducerOrder",
                                    tp + " holds " + producer + "'s value " + number + " at " + offset
                                            + " after its value " + previous);
                        }
                    }
                }
            }
        }
        for (Map.Entry<String, History.Position> ack : history.ackedValues().entrySet()) {
            History.Position acked = ack.getValue();
            if (acked.offset() < markers.get(acked.topicPartition()).logStartOffset()) {
                excusedBelowLogStart++; // retention removed its offset, as it may
                continue;
            }
            History.Position stored = where.get(ack.getKey());
            if (stored == null) {
                history.violation("NoAckedLoss", ack.getKey() + " acknowledged at " + acked + " is not in the log");
            } else if (!stored.equals(acked)) {
                history.violation("NoAckedLoss", ack.getKey() + " acknowledged at " + acked + " is at " + stored);
            }
        }
        checkAckedWithoutOffset(where, markers);
        transactions.readLog();
    }

    /**
     * A value acknowledged as a duplicate without its offset must be in the log, unless retention
     * removed it: excused only when it was read before at an offset now below the log start, or when a
     * later value of its producer on its partition lies below the log start (per-producer order, which
     * {@code readLog} checks, puts it lower still). Nothing else excuses it.
     */
    private void checkAckedWithoutOffset(Map<String, History.Position> where, Map<TopicPartition, LogOffsets> markers) {
        Map<String, Long> removedUpTo = latestRemovedValueOfProducer(markers);
        for (Map.Entry<String, TopicPartition> ack :
                history.ackedWithoutOffset().entrySet()) {
            String value = ack.getKey();
            TopicPartition tp = ack.getValue();
            if (where.containsKey(value)) {
                continue;
            }
            long logStart = markers.get(tp).logStartOffset();
            History.Position seen = history.observedAt(value);
            if (seen != null && seen.offset() < logStart) {
                excusedBelowLogStart++;
                continue;
            }
            Long latestRemoved = removedUpTo.get(producerOf(value) + "@" + tp);
            if (latestRemoved != null && latestRemoved > numberOf(value)) {
                excusedBelowLogStart++;
                continue;
            }
            history.violation(
                    "NoAckedLoss",
                    value + " acknowledged (as a duplicate) on " + tp
                            + " is not in the log, and nothing shows that retention removed it (log start " + logStart
                            + ")");
        }
    }

    /** Per producer and partition, the highest value number known to have been at an offset below the log start. */
    private Map<String, Long> latestRemovedValueOfProducer(Map<TopicPartition, LogOffsets> markers) {
        Map<String, Long> latest = new HashMap<>();
        Map<String, History.Position> known = new HashMap<>(history.ackedValues());
        for (String value : history.ackedWithoutOffset().keySet()) {
            History.Position seen = history.observedAt(value);
            if (seen != null) {
                known.putIfAbsent(value, seen);
            }
        }
        known.forEach((value, position) -> {
            if (position.offset() < markers.get(position.topicPartition()).logStartOffset()) {
                latest.merge(producerOf(value) + "@" + position.topicPartition(), numberOf(value), Math::max);
            }
        });
        return latest;
    }

    private static String producerOf(String value) {
        return value.substring(0, value.indexOf('-'));
    }

    private static long numberOf(String value) {
        return Long.parseLong(value.substring(value.indexOf('-') + 1));
    }

    /**
     * At the end: every segment object stored before {@code storedBefore} is referenced by a batch
     * (GarbageDeleted). Younger ones may still be on their way in (a compaction's output before its
     * swap, a late PUT that landed after the last quiet period) and are only counted; the run ends with
     * a quiet period longer than every grace and delay, so what leaked before it has had its chance to go.
     */
    void checkGarbage(Instant storedBefore) {
        Set<String> referenced = new HashSet<>();
        for (TopicPartition tp : partitions) {
            for (BatchCoordinate row : metadata.batches(tp, 0, Integer.MAX_VALUE)) {
                referenced.add(row.object().value());
            }
        }
        for (ObjectInfo info : objects.list("segments/")) {
            if (referenced.contains(info.key().value())) {
                continue;
            }
            if (info.lastModified().isBefore(storedBefore)) {
                history.violation("GarbageDeleted", info.key() + " is unreferenced after the heal phase");
            } else {
                youngUnreferenced++;
            }
        }
    }

    /** Unreferenced objects the garbage check found made after its cutoff (on their way in, not counted as leaks). */
    long youngUnreferenced() {
        return youngUnreferenced;
    }
}
