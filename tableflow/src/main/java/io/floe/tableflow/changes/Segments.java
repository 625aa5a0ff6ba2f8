package io.floe.tableflow.changes;

import java.util.ArrayList;
import java.util.List;

/**
 * A range of a topic cut by the table's commits: per commit (oldest first), per partition (ascending),
 * the offsets that commit made visible within the range. This is the order changes come in: by commit,
 * then partition, then offset, which keeps each partition's offset order.
 */
final class Segments {

    /** Offsets {@code [from, until)} of {@code partition}, made visible by {@code commit} (null: expired). */
    record Segment(Commit commit, int partition, long from, long until) {}

    private Segments() {}

    /** The segments of {@code [start, end)}. */
    static List<Segment> of(TableHistory history, Offsets start, Offsets end) {
        List<Segment> segments = new ArrayList<>();
        List<TableHistory.Entry> entries = history.entries();
        Offsets previous;
        if (history.startRetained()) {
            previous = Offsets.START;
        } else {
            // The commits before the oldest snapshot left are unknown: one segment of no commit covers them.
            previous = entries.get(0).watermark();
            add(segments, null, start, end, Offsets.START, previous);
        }
        for (TableHistory.Entry entry : entries) {
            add(segments, entry.commit(), start, end, previous, entry.watermark());
            previous = entry.watermark();
        }
        return segments;
    }

    private static void add(
            List<Segment> segments, Commit commit, Offsets start, Offsets end, Offsets previous, Offsets next) {
        for (int partition : end.next().keySet()) {
            long from = Math.max(start.get(partition), previous.get(partition));
            long until = Math.min(end.get(partition), next.get(partition));
            if (from < until) {
                segments.add(new Segment(commit, partition, from, until));
            }
        }
    }
}
