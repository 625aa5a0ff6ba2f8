package io.floe.tableflow.changes;

import io.floe.tableflow.changes.ChangeQueryException.Reason;
import io.floe.tableflow.rows.Rows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The offsets of a replay's segments that the dead-letter table holds: the records its rounds refused.
 * Read once per segment, only for segments whose commit recorded no decoding settings, filtered on
 * {@code kafka_partition} and {@code kafka_offset} so Iceberg prunes by the files' statistics; at most
 * {@code offsetsMax} offsets are held for one query.
 */
final class DeadLetterOffsets {

    private final Supplier<Optional<Table>> deadLetters;
    private final String tableName;
    private final int offsetsMax;
    private final Map<Segments.Segment, Set<Long>> bySegment = new HashMap<>();
    private Optional<Table> table;
    private long held;

    DeadLetterOffsets(Supplier<Optional<Table>> deadLetters, String tableName, int offsetsMax) {
        this.deadLetters = deadLetters;
        this.tableName = tableName;
        this.offsetsMax = offsetsMax;
    }

    /** The offsets of {@code segment} (of its partition, in its range) that the dead-letter table holds. */
    Set<Long> of(Segments.Segment segment) {
        Set<Long> offsets = bySegment.get(segment);
        if (offsets == null) {
            offsets = read(segment);
            bySegment.put(segment, offsets);
        }
        return offsets;
    }

    private Set<Long> read(Segments.Segment segment) {
        if (table == null) {
            table = deadLetters.get();
        }
        Set<Long> offsets = new HashSet<>();
        if (table.isEmpty() || table.get().currentSnapshot() == null) {
            return offsets;
        }
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table.get())
                .select(Rows.PARTITION, Rows.OFFSET)
                .where(Expressions.and(
                        Expressions.equal(Rows.PARTITION, segment.partition()),
                        Expressions.greaterThanOrEqual(Rows.OFFSET, segment.from()),
                        Expressions.lessThan(Rows.OFFSET, segment.until())))
                .build()) {
            for (Record row : rows) {
                long offset = (Long) row.getField(Rows.OFFSET);
                boolean inSegment = (Integer) row.getField(Rows.PARTITION) == segment.partition()
                        && offset >= segment.from()
                        && offset < segment.until();
                if (inSegment && offsets.add(offset) && ++held > offsetsMax) {
                    throw new ChangeQueryException(
                            Reason.TOO_LARGE,
                            "the dead-letter table of " + tableName + " holds more than " + offsetsMax
                                    + " records in the range this query replays with it; query a narrower range");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dead letters of table " + tableName, e);
        }
        return offsets;
    }
}
