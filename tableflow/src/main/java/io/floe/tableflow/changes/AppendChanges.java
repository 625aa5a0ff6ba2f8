package io.floe.tableflow.changes;

import io.floe.tableflow.rows.Rows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The changes of an append table: its rows whose {@code kafka_offset} lies in the range, read from the
 * table's current snapshot (an append table never loses a row, so this survives log retention and
 * snapshot expiry), filtered on {@code kafka_partition} and {@code kafka_offset} so Iceberg prunes files
 * and row groups by their statistics. Each segment is read a slice of offsets at a time and ordered by
 * offset, as files need not hold their rows in order.
 */
final class AppendChanges {

    private final Table table;
    private final long snapshotId;
    private final List<Segments.Segment> segments;
    private final int rowsPerSlice;

    AppendChanges(Table table, long snapshotId, List<Segments.Segment> segments, int rowsPerSlice) {
        this.table = table;
        this.snapshotId = snapshotId;
        this.segments = segments;
        this.rowsPerSlice = rowsPerSlice;
    }

    long run(ChangeSink sink) throws IOException {
        long count = 0;
        for (Segments.Segment segment : segments) {
            for (long from = segment.from(); from < segment.until(); from += rowsPerSlice) {
                long until = Math.min(segment.until(), from + rowsPerSlice);
                for (Record row : rows(segment.partition(), from, until)) {
                    sink.accept(new Change(
                            Op.INSERT,
                            (ByteBuffer) row.getField(Rows.KEY),
                            null,
                            row,
                            segment.partition(),
                            (Long) row.getField(Rows.OFFSET),
                            ((OffsetDateTime) row.getField(Rows.TIMESTAMP))
                                    .toInstant()
                                    .toEpochMilli(),
                            segment.commit()));
                    count++;
                }
            }
        }
        return count;
    }

    /** The rows of {@code partition} with offsets in {@code [from, until)}, in offset order. */
    private List<Record> rows(int partition, long from, long until) {
        Expression slice = Expressions.and(
                Expressions.equal(Rows.PARTITION, partition),
                Expressions.greaterThanOrEqual(Rows.OFFSET, from),
                Expressions.lessThan(Rows.OFFSET, until));
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                .useSnapshot(snapshotId)
                .project(table.schema())
                .where(slice)
                .build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the rows of table " + table.name(), e);
        }
        rows.sort(Comparator.comparingLong(row -> (Long) row.getField(Rows.OFFSET)));
        return rows;
    }
}
