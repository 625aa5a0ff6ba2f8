package io.floe.tableflow.changes;

import io.floe.tableflow.rows.Rows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
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
 * and row groups by their statistics. Each commit's ranges are read a slice of at most {@code
 * rowsPerSlice} offsets at a time, one scan for all the slice's partitions, and ordered by partition and
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
        List<Segments.Segment> slice = new ArrayList<>();
        long room = rowsPerSlice;
        for (int i = 0; i < segments.size(); i++) {
            Segments.Segment segment = segments.get(i);
            for (long from = segment.from(); from < segment.until(); ) {
                long until = Math.min(segment.until(), from + room);
                slice.add(new Segments.Segment(segment.commit(), segment.partition(), from, until));
                room -= until - from;
                from = until;
                if (room == 0) {
                    count += emit(slice, sink);
                    room = rowsPerSlice;
                }
            }
            boolean commitEnds = i + 1 == segments.size()
                    || !Objects.equals(segments.get(i + 1).commit(), segment.commit());
            if (commitEnds && !slice.isEmpty()) {
                count += emit(slice, sink);
                room = rowsPerSlice;
            }
        }
        return count;
    }

    /** Hands on the rows of one slice (ranges of one commit), by partition and offset; empties it. */
    private long emit(List<Segments.Segment> slice, ChangeSink sink) throws IOException {
        Commit commit = slice.get(0).commit();
        long count = 0;
        for (Record row : rows(slice)) {
            sink.accept(new Change(
                    Op.INSERT,
                    (ByteBuffer) row.getField(Rows.KEY),
                    null,
                    row,
                    (Integer) row.getField(Rows.PARTITION),
                    (Long) row.getField(Rows.OFFSET),
                    ((OffsetDateTime) row.getField(Rows.TIMESTAMP)).toInstant().toEpochMilli(),
                    commit));
            count++;
        }
        slice.clear();
        return count;
    }

    /**
     * The rows of {@code slice}'s ranges, by partition and offset: one scan for them all, so a file that
     * holds several partitions (every file of an unpartitioned table's round does) is read once.
     */
    private List<Record> rows(List<Segments.Segment> slice) {
        Expression ranges = Expressions.alwaysFalse();
        for (Segments.Segment range : slice) {
            ranges = Expressions.or(
                    ranges,
                    Expressions.and(
                            Expressions.equal(Rows.PARTITION, range.partition()),
                            Expressions.greaterThanOrEqual(Rows.OFFSET, range.from()),
                            Expressions.lessThan(Rows.OFFSET, range.until())));
        }
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                .useSnapshot(snapshotId)
                .project(table.schema())
                .where(ranges)
                .build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the rows of table " + table.name(), e);
        }
        rows.sort(Comparator.comparing((Record row) -> (Integer) row.getField(Rows.PARTITION))
                .thenComparing(row -> (Long) row.getField(Rows.OFFSET)));
        return rows;
    }
}
