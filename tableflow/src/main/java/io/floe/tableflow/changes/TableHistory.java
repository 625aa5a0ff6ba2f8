package io.floe.tableflow.changes;

import io.floe.tableflow.changes.ChangeQueryException.Reason;
import io.floe.tableflow.table.Watermark;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * A table's commits as change queries see them: the current snapshot's ancestors still in the table,
 * oldest first, each with the watermark it carries (or inherits, for a snapshot that carries none) of
 * the topic the table now materializes. A change at {@code (partition, offset)} became visible in the
 * first of them whose watermark passed its offset; compactions carry their parent's watermark, so that
 * is always the round that wrote it.
 */
final class TableHistory {

    /** One snapshot and the position it holds the topic up to. */
    record Entry(long snapshotId, long committedAtMs, Offsets watermark) {
        Commit commit() {
            return new Commit(snapshotId, Instant.ofEpochMilli(committedAtMs));
        }

        @Override
        public String toString() {
            return "snapshot " + snapshotId + " (committed " + Instant.ofEpochMilli(committedAtMs) + ", offsets "
                    + watermark + ")";
        }
    }

    private final String tableName;
    private final List<Entry> entries;
    private final boolean startRetained;

    private TableHistory(String tableName, List<Entry> entries, boolean startRetained) {
        this.tableName = tableName;
        this.entries = List.copyOf(entries);
        this.startRetained = startRetained;
    }

    /**
     * The history of {@code table} for the topic {@code topicId}; snapshots of an earlier topic of the
     * same name are left out (its offsets mean nothing now).
     */
    static TableHistory of(Table table, String tableName, UUID topicId) {
        List<Snapshot> lineage = new ArrayList<>();
        if (table.currentSnapshot() != null) {
            SnapshotUtil.ancestorsOf(table.currentSnapshot().snapshotId(), table::snapshot)
                    .forEach(lineage::add);
        }
        List<Entry> entries = new ArrayList<>();
        Watermark inherited = null;
        boolean startRetained =
                !lineage.isEmpty() && lineage.get(lineage.size() - 1).parentId() == null;
        for (int i = lineage.size() - 1; i >= 0; i--) {
            Snapshot snapshot = lineage.get(i);
            String text = snapshot.summary().get(Watermark.SUMMARY_PROPERTY);
            Watermark mark = text == null ? inherited : Watermark.parse(text);
            inherited = mark;
            if (mark == null || !mark.topicId().equals(topicId)) {
                // Rows of an earlier topic of this name (or not Tableflow's): the current topic's history
                // starts after them, and the table before its first commit was not empty.
                startRetained = false;
                entries.clear();
                continue;
            }
            entries.add(new Entry(snapshot.snapshotId(), snapshot.timestampMillis(), Offsets.of(mark.nextOffsets())));
        }
        return new TableHistory(tableName, entries, startRetained);
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    List<Entry> entries() {
        return entries;
    }

    Entry current() {
        return entries.get(entries.size() - 1);
    }

    /**
     * Whether the oldest entry is the table's first snapshot, so the table before it was empty and
     * nothing of the topic was committed before it.
     */
    boolean startRetained() {
        return startRetained;
    }

    /** The position {@code point} names, listing every partition the table holds. */
    Offsets resolve(Point point) {
        Set<Integer> partitions = current().watermark().next().keySet();
        if (point instanceof Point.AtSnapshot at) {
            return snapshot(at.snapshotId()).watermark().covering(partitions);
        }
        if (point instanceof Point.AtTime at) {
            return asOf(at.time()).watermark().covering(partitions);
        }
        if (point instanceof Point.AtOffsets at) {
            return checked(at.offsets());
        }
        if (point instanceof Point.Earliest) {
            return Offsets.START.covering(partitions);
        }
        return current().watermark();
    }

    private Entry snapshot(long snapshotId) {
        return entries.stream()
                .filter(entry -> entry.snapshotId() == snapshotId)
                .findFirst()
                .orElseThrow(() -> refused("table " + tableName + " has no snapshot " + snapshotId
                        + " (expired, of an earlier topic of this name, or never its own); " + available()));
    }

    private Entry asOf(Instant time) {
        Entry found = null;
        for (Entry entry : entries) {
            if (entry.committedAtMs() <= time.toEpochMilli()) {
                found = entry;
            }
        }
        if (found == null) {
            throw refused(time + " is before the oldest snapshot of table " + tableName + "; " + available());
        }
        return found;
    }

    private Offsets checked(Offsets offsets) {
        Offsets held = current().watermark();
        for (int partition : offsets.next().keySet()) {
            if (!held.next().containsKey(partition)) {
                throw refused("table " + tableName + " has no partition " + partition + "; it holds offsets " + held);
            }
            if (offsets.get(partition) > held.get(partition)) {
                throw refused("offset " + offsets.get(partition) + " of partition " + partition + " is beyond table "
                        + tableName + ", which holds offsets " + held + " (its current snapshot "
                        + current().snapshotId() + ")");
            }
        }
        if (!offsets.next().keySet().equals(held.next().keySet())) {
            Set<Integer> missing = new TreeSet<>(held.next().keySet());
            missing.removeAll(offsets.next().keySet());
            throw refused("offsets " + offsets + " leave out partitions " + missing + " of table " + tableName
                    + "; give an offset for each, as in " + held);
        }
        return offsets;
    }

    /**
     * The newest snapshot whose watermark is at or before {@code position}: the table there holds
     * exactly the records below its watermark. Empty when the position is before the table's first
     * commit (the table was empty then); {@link ChangeQueryException} (gone) when the snapshots that
     * far back have been expired.
     */
    Optional<Entry> base(Offsets position) {
        Entry base = null;
        for (Entry entry : entries) {
            if (entry.watermark().atMost(position)) {
                base = entry;
            }
        }
        if (base == null && !startRetained) {
            throw new ChangeQueryException(
                    Reason.GONE,
                    "table " + tableName + " no longer has a snapshot at or before offsets " + position
                            + " (older snapshots were expired, floe.tableflow.snapshot.retention.ms); query from "
                            + entries.get(0) + " or later");
        }
        return Optional.ofNullable(base);
    }

    /** What the table has, for messages. */
    String available() {
        return "it has " + entries.get(0) + (entries.size() > 1 ? " to " + current() : " only");
    }

    private ChangeQueryException refused(String message) {
        return new ChangeQueryException(Reason.INVALID, message);
    }
}
