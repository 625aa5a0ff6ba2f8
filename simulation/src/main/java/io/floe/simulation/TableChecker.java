package io.floe.simulation;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogReads;
import io.floe.tableflow.rows.RawValueDecoder;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * ExactlyOnceTable, checked on the table as committed (read through the raw store, no faults): the
 * rows are exactly the topic's records below the watermark the table's snapshot carries, each once,
 * each with the value the log held at its offset, but for those of aborted transactions
 * (NoAbortedRead: never a row); and (TableCatchesUp) after the heal phase the
 * watermark reaches the high watermark of every partition.
 */
final class TableChecker implements AutoCloseable {

    private final TableCatalog catalog;
    private final LogReads metadata;
    private final History history;
    private final String topic;
    private final int partitions;
    private final TransactionChecker transactions;
    private long rowsChecked;

    /** {@code transactions}: the log's transactions as of its last read, which the table must agree with. */
    TableChecker(
            TableCatalog catalog,
            LogReads metadata,
            History history,
            String topic,
            int partitions,
            TransactionChecker transactions) {
        this.transactions = transactions;
        this.catalog = catalog;
        this.metadata = metadata;
        this.history = history;
        this.topic = topic;
        this.partitions = partitions;
    }

    String topic() {
        return topic;
    }

    long rowsChecked() {
        return rowsChecked;
    }

    /** The table's watermark for each partition; empty before the first commit. */
    Optional<Watermark> watermark() {
        return catalog.load(topic).flatMap(Watermark::of);
    }

    boolean caughtUp() {
        Optional<Watermark> mark = watermark();
        for (int p = 0; p < partitions; p++) {
            long end = metadata.offsets(new TopicPartition(topic, p)).highWatermark();
            if (end > 0 && (mark.isEmpty() || mark.get().next(p) < end)) {
                return false;
            }
        }
        return true;
    }

    void check() {
        Optional<Table> table = catalog.load(topic);
        Optional<Watermark> mark = table.flatMap(Watermark::of);
        if (table.isEmpty() || mark.isEmpty()) {
            return;
        }
        Map<History.Position, String> rows = new HashMap<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table.get()).build()) {
            for (Record record : records) {
                rowsChecked++;
                TopicPartition tp = new TopicPartition(topic, (Integer) record.getField(Rows.PARTITION));
                History.Position position = new History.Position(tp, (Long) record.getField(Rows.OFFSET));
                ByteBuffer raw = ((ByteBuffer) record.getField(RawValueDecoder.COLUMN)).duplicate();
                byte[] bytes = new byte[raw.remaining()];
                raw.get(bytes);
                String value = new String(bytes, StandardCharsets.UTF_8);
                if (rows.put(position, value) != null) {
                    history.violation("ExactlyOnceTable", "the table holds " + position + " twice");
                }
                if (position.offset() >= mark.get().next(tp.partition())) {
                    history.violation(
                            "ExactlyOnceTable",
                            "the table holds " + position + " at or above its watermark "
                                    + mark.get().next(tp.partition()));
                }
                history.observed(position, value, "table");
                if (history.transactionOf(value) != null
                        && transactions.fate(value) != TransactionChecker.Fate.COMMITTED) {
                    history.violation(
                            "NoAbortedRead",
                            "the table holds " + value + " at " + position + " of " + history.transactionOf(value)
                                    + ", which the log holds as " + transactions.fate(value));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<Integer, Long> starts = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            LogOffsets offsets = metadata.offsets(tp);
            long next = mark.get().next(p);
            if (next > offsets.highWatermark()) {
                history.violation(
                        "MonotoneMarkers",
                        "the table's watermark " + next + " of " + tp + " is above the high watermark "
                                + offsets.highWatermark());
            }
            // Records that expired before the table's first round are skipped (counted by the job's
            // skippedByRetention metric): the table may start above 0, but only below the log start, and from
            // there on it holds every offset below its watermark.
            long start = next;
            for (History.Position position : rows.keySet()) {
                if (position.topicPartition().equals(tp)) {
                    start = Math.min(start, position.offset());
                }
            }
            starts.put(p, start);
            // Markers, and records of aborted transactions, have no rows (the log's last read says which).
            java.util.Set<Long> withoutRows = transactions.withoutRows(tp);
            long firstRow = offsets.logStartOffset();
            while (withoutRows.contains(firstRow)) {
                firstRow++;
            }
            if (start > 0 && start > firstRow) {
                history.violation(
                        "ExactlyOnceTable",
                        "the table of " + tp + " starts at " + start
                                + " although the log still holds everything from " + offsets.logStartOffset() + "; "
                                + describe(table.get()));
            }
            for (long offset = start; offset < next; offset++) {
                if (!rows.containsKey(new History.Position(tp, offset)) && !withoutRows.contains(offset)) {
                    history.violation(
                            "ExactlyOnceTable",
                            "the table lacks " + tp + " offset " + offset + " below its watermark " + next + "; "
                                    + describe(table.get()));
                    break;
                }
            }
        }
        history.ackedValues().forEach((value, position) -> {
            int partition = position.topicPartition().partition();
            if (position.topicPartition().topic().equals(topic)
                    && position.offset() >= starts.get(partition)
                    && position.offset() < mark.get().next(partition)
                    && !value.equals(rows.get(position))) {
                history.violation(
                        "ExactlyOnceTable",
                        value + " acknowledged at " + position + " is not in the table" + " there (it holds "
                                + rows.get(position) + ")");
            }
        });
    }

    private static String describe(Table table) {
        StringBuilder text = new StringBuilder("snapshots:");
        for (org.apache.iceberg.Snapshot snapshot : table.snapshots()) {
            text.append(' ')
                    .append(snapshot.snapshotId())
                    .append('(')
                    .append(snapshot.operation())
                    .append(", parent ")
                    .append(snapshot.parentId())
                    .append(", ")
                    .append(snapshot.summary().get("total-records"))
                    .append(" records, ")
                    .append(snapshot.summary().get("total-data-files"))
                    .append(" files)");
        }
        return text.append("; current ")
                .append(
                        table.currentSnapshot() == null
                                ? null
                                : table.currentSnapshot().snapshotId())
                .toString();
    }

    @Override
    public void close() {
        catalog.close();
    }
}
