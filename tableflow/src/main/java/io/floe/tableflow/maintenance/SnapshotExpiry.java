package io.floe.tableflow.maintenance;

import io.floe.tableflow.delta.DeltaFileReferences;
import io.floe.tableflow.table.PinnedTable;
import io.floe.tableflow.table.Watermark;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.ExpireSnapshots.CleanupLevel;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires a table's snapshots older than its retention, with Iceberg's own {@link ExpireSnapshots},
 * which also deletes the data files, manifests and manifest lists only the expired snapshots
 * referenced. Pinned like every Tableflow commit: the expiry is computed from one version of the
 * metadata and commits only on that version, so it never drops a snapshot a round committed meanwhile.
 *
 * <p>The current snapshot is always kept, and so is the newest snapshot carrying the watermark with
 * every snapshot after it: a snapshot another engine committed has no watermark, and the job finds its
 * watermark by walking back from the current snapshot, so expiring that ancestor would make the job
 * start the topic over.
 *
 * <p>A table with a Delta log ({@link DeltaFileReferences}) keeps every file a Delta version may still
 * read: those of the latest Delta version (a log that lags behind Iceberg) and those whose removal from
 * the Delta log is younger than its {@code delta.deletedFileRetentionDuration}, as Delta's VACUUM keeps
 * them. Orphan removal deletes them once no Delta version needs them. A Delta log that cannot be read
 * keeps every data and delete file the expired snapshots let go (their manifests go), for orphan
 * removal to judge once it can be read.
 */
final class SnapshotExpiry {

    private static final Logger LOGGER = LoggerFactory.getLogger(SnapshotExpiry.class);

    /** Snapshots kept however old: the current one (and back to the watermark, see the class comment). */
    static final int RETAIN_LAST = 1;

    private SnapshotExpiry() {}

    /**
     * What an expiry did: snapshots removed from the metadata, files it deleted, files it kept for the
     * table's Delta log, and whether it kept every file because that log could not be read.
     */
    record Outcome(int snapshotsExpired, int filesRemoved, int filesKeptForDelta, boolean deltaUnreadable) {
        static final Outcome NONE = new Outcome(0, 0, 0, false);
    }

    /**
     * Expires the snapshots of {@code table} older than {@code now - retention}; commits nothing when none
     * is. Throws {@link org.apache.iceberg.exceptions.CommitFailedException} when the table changed since
     * it was loaded.
     */
    static Outcome expire(Table table, Duration retention, Instant now) {
        return expire(table, retention, now, new DeltaFileReferences.TombstoneCache(), Map.of());
    }

    /**
     * As {@link #expire(Table, Duration, Instant)}, with the table's cache of Delta checkpoint tombstones,
     * keeping the snapshots back to the newest one at or before {@code holds} (the topic's lowest retention
     * hold per partition): a reader of the log that stands there (a change topic behind its table) replays
     * its next range from that snapshot's rows.
     */
    static Outcome expire(
            Table table,
            Duration retention,
            Instant now,
            DeltaFileReferences.TombstoneCache cache,
            Map<Integer, Long> holds) {
        Table pinned = PinnedTable.pin(table);
        Snapshot current = pinned.currentSnapshot();
        if (current == null) {
            return Outcome.NONE;
        }
        Optional<Set<String>> deltaFiles = deltaFiles(pinned, now, cache);
        Set<String> keep = deltaFiles.orElse(Set.of());
        AtomicInteger removed = new AtomicInteger();
        AtomicInteger kept = new AtomicInteger();
        ExpireSnapshots expire = pinned.expireSnapshots()
                .expireOlderThan(now.minus(retention).toEpochMilli())
                .retainLast(Math.max(
                        Math.max(RETAIN_LAST, snapshotsBackToWatermark(pinned, current)),
                        snapshotsBackToHolds(pinned, current, holds)))
                .deleteWith(location -> {
                    if (keep.contains(OrphanFiles.normal(location))) {
                        kept.incrementAndGet();
                        return;
                    }
                    pinned.io().deleteFile(location);
                    removed.incrementAndGet();
                })
                .cleanupLevel(deltaFiles.isPresent() ? CleanupLevel.ALL : CleanupLevel.METADATA_ONLY);
        List<Snapshot> expired = expire.apply();
        if (expired.isEmpty()) {
            return Outcome.NONE;
        }
        expire.commit();
        return new Outcome(expired.size(), removed.get(), kept.get(), deltaFiles.isEmpty());
    }

    /**
     * The files the table's Delta log may still read at {@code now}, in {@link OrphanFiles#normal} form
     * (none when it has no Delta log); empty when the log cannot be read.
     */
    private static Optional<Set<String>> deltaFiles(
            Table table, Instant now, DeltaFileReferences.TombstoneCache cache) {
        try {
            return Optional.of(DeltaFileReferences.read(table, now, cache)
                    .map(references -> references.retainedAt(now))
                    .orElse(Set.of()));
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "snapshot expiry keeps every file table={}: its delta log cannot be read: {}; orphan removal"
                            + " deletes them once it can be",
                    table.name(),
                    e.toString());
            return Optional.empty();
        }
    }

    /**
     * How many snapshots, from the current one back, it takes to include the newest whose watermark is at
     * or before {@code holds} in every partition (0: no holds, or none is: what the hold needs is gone).
     */
    static int snapshotsBackToHolds(Table table, Snapshot current, Map<Integer, Long> holds) {
        if (holds.isEmpty()) {
            return 0;
        }
        int count = 0;
        for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
            count++;
            String text = snapshot.summary().get(Watermark.SUMMARY_PROPERTY);
            if (text != null
                    && Watermark.parse(text).nextOffsets().entrySet().stream()
                            .allMatch(next -> next.getValue() <= holds.getOrDefault(next.getKey(), Long.MAX_VALUE))) {
                return count;
            }
        }
        return 0;
    }

    /** How many snapshots, from the current one back, it takes to include one carrying a watermark (0: none does). */
    static int snapshotsBackToWatermark(Table table, Snapshot current) {
        int count = 0;
        for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
            count++;
            if (snapshot.summary().containsKey(Watermark.SUMMARY_PROPERTY)) {
                return count;
            }
        }
        return 0;
    }
}
