package io.floe.tableflow.rest;

import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A topic's table as an agent's Iceberg REST catalog shows it, for {@code floe tables describe}: what an
 * operator asks about a table without the CLI seeing Iceberg's classes.
 *
 * @param current the current snapshot, empty before the first commit
 * @param stalled the reason the table stopped, when it did
 * @param watermark the next offset per partition recorded in the current snapshot
 * @param deadLetterRows the rows in the dead-letter table's current snapshot, empty when it has none
 */
public record RemoteTable(
        String location,
        String partitioning,
        int snapshots,
        Optional<CurrentSnapshot> current,
        Optional<String> stalled,
        Optional<Watermark> watermark,
        Optional<String> deadLetterRows) {

    /** The current snapshot: its id, commit time and the table totals from its summary ("?" when absent). */
    public record CurrentSnapshot(long id, Instant committedAt, String dataFiles, String rows, String bytes) {}

    static RemoteTable of(org.apache.iceberg.Table table, Optional<org.apache.iceberg.Table> deadLetters) {
        int snapshots = 0;
        for (org.apache.iceberg.Snapshot ignored : table.snapshots()) {
            snapshots++;
        }
        org.apache.iceberg.Snapshot snapshot = table.currentSnapshot();
        Optional<CurrentSnapshot> current = Optional.ofNullable(snapshot)
                .map(s -> new CurrentSnapshot(
                        s.snapshotId(),
                        Instant.ofEpochMilli(s.timestampMillis()),
                        total(s.summary(), "total-data-files"),
                        total(s.summary(), "total-records"),
                        total(s.summary(), "total-files-size")));
        Optional<String> deadLetterRows = deadLetters
                .flatMap(dead -> Optional.ofNullable(dead.currentSnapshot()))
                .map(dead -> total(dead.summary(), "total-records"));
        return new RemoteTable(
                table.location(),
                table.spec().isUnpartitioned() ? "none" : table.spec().fields().toString(),
                snapshots,
                current,
                Optional.ofNullable(table.properties().get(TableCatalog.STALLED_PROPERTY)),
                Watermark.of(table),
                deadLetterRows);
    }

    private static String total(Map<String, String> summary, String name) {
        return summary.getOrDefault(name, "?");
    }
}
