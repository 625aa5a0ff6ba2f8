package io.floe.tableflow.maintenance;

import io.floe.tableflow.table.PinnedTable;
import io.floe.tableflow.table.Watermark;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

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
 */
final class SnapshotExpiry {

    /** Snapshots kept however old: the current one (and back to the watermark, see the class comment). */
    static final int RETAIN_LAST = 1;

    private SnapshotExpiry() {}

    /** What an expiry did: snapshots removed from the metadata and files it deleted. */
    record Outcome(int snapshotsExpired, int filesRemoved) {
        static final Outcome NONE = new Outcome(0, 0);
    }

    /**
     * Expires the snapshots of {@code table} older than {@code now - retention}; commits nothing when none
     * is. Throws {@link org.apache.iceberg.exceptions.CommitFailedException} when the table changed since
     * it was loaded.
     */
    static Outcome expire(Table table, Duration retention, Instant now) {
        Table pinned = PinnedTable.pin(table);
        Snapshot current = pinned.currentSnapshot();
        if (current == null) {
            return Outcome.NONE;
        }
        AtomicInteger removed = new AtomicInteger();
        ExpireSnapshots expire = pinned.expireSnapshots()
                .expireOlderThan(now.minus(retention).toEpochMilli())
                .retainLast(Math.max(RETAIN_LAST, snapshotsBackToWatermark(pinned, current)))
                .deleteWith(location -> {
                    pinned.io().deleteFile(location);
                    removed.incrementAndGet();
                });
        List<Snapshot> expired = expire.apply();
        if (expired.isEmpty()) {
            return Outcome.NONE;
        }
        expire.commit();
        return new Outcome(expired.size(), removed.get());
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
