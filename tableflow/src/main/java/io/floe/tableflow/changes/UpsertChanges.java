package io.floe.tableflow.changes;

import io.floe.core.record.StoredRecord;
import io.floe.tableflow.changes.ChangeQueryException.Reason;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.UpsertKey;
import io.floe.tableflow.rows.UpsertRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The changes of an upsert table, replayed as the table job applied them: the rows of the keys the log
 * changes in the range, taken from the table at the base snapshot (the newest at or before the start),
 * then the committed log from the base's watermark to the end in order, each record turning its key's
 * row into the next one exactly as a round does ({@link UpsertRecords}: a tombstone deletes, a dead
 * letter changes nothing; keys are the table's {@link UpsertKey}), decoded with the settings of the commit
 * that applied it ({@link CommitDecoders}). Records below the start only move the rows forward; from the
 * start on, each change is handed on with the row before and after.
 *
 * <p>Three passes: the keys the range changes (from the log), their rows at the base (from the table),
 * the replay (from the log again). Memory holds one row per changed key, at most {@link
 * ChangeLimits#keysMax} keys.
 */
final class UpsertChanges {

    /** Up to this many keys, the base scan asks Iceberg to prune files by the key columns' bounds. */
    private static final int PRUNED_KEYS_MAX = 1000;

    private final Table table;
    private final String tableName;
    private final Schema schema;
    private final Optional<TableHistory.Entry> base;
    private final Offsets from;
    private final List<Segments.Segment> segments;
    private final LogRanges log;
    private final CommitDecoders decoders;
    private final UpsertKey key;
    private final int keysMax;

    UpsertChanges(
            Table table,
            String tableName,
            Optional<TableHistory.Entry> base,
            Offsets from,
            List<Segments.Segment> segments,
            LogRanges log,
            CommitDecoders decoders,
            int keysMax) {
        this.table = table;
        this.tableName = tableName;
        this.schema = table.schema();
        this.base = base;
        this.from = from;
        this.segments = segments;
        this.log = log;
        this.decoders = decoders;
        this.key = UpsertKey.of(schema);
        this.keysMax = keysMax;
    }

    long run(ChangeSink sink) throws IOException {
        Map<ByteBuffer, Record> rows = baseRows(changedKeys());
        long[] count = {0};
        try {
            for (Segments.Segment segment : segments) {
                CommitDecoders.Records records = decoders.of(segment);
                log.read(segment, record -> {
                    Change change = apply(rows, segment, records.change(segment.partition(), record), record);
                    if (change != null) {
                        try {
                            sink.accept(change);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                        count[0]++;
                    }
                });
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return count[0];
    }

    /**
     * The change {@code record} makes ({@code change}: null for a dead letter), applied to {@code rows};
     * null when it changes nothing or is before the start.
     */
    private Change apply(
            Map<ByteBuffer, Record> rows, Segments.Segment segment, UpsertRecords.Change change, StoredRecord record) {
        if (change == null) {
            return null;
        }
        Record after = change.row();
        Record before = after == null ? rows.remove(change.key()) : rows.put(change.key(), after);
        if (record.offset() < from.get(segment.partition()) || (before == null && after == null)) {
            return null;
        }
        Op op = before == null ? Op.INSERT : after == null ? Op.DELETE : Op.UPDATE;
        return new Change(
                op,
                change.key(),
                before,
                after,
                segment.partition(),
                record.offset(),
                record.timestamp(),
                segment.commit());
    }

    /** The keys of the records in the range, from the base's watermark on. */
    private Set<ByteBuffer> changedKeys() {
        Set<ByteBuffer> keys = new HashSet<>();
        for (Segments.Segment segment : segments) {
            CommitDecoders.Records records = decoders.of(segment);
            log.read(segment, record -> {
                ByteBuffer changed = records.keyOf(segment.partition(), record);
                if (changed != null && keys.add(changed) && keys.size() > keysMax) {
                    throw new ChangeQueryException(
                            Reason.TOO_LARGE,
                            "the log changes more than " + keysMax + " keys of table " + tableName
                                    + " between the base snapshot and the end of this query; query a narrower"
                                    + " range");
                }
            });
        }
        return keys;
    }

    /** The rows of {@code keys} in the table at the base snapshot (none before the table's first commit). */
    private Map<ByteBuffer, Record> baseRows(Set<ByteBuffer> keys) {
        Map<ByteBuffer, Record> rows = new HashMap<>();
        if (base.isEmpty() || keys.isEmpty()) {
            return rows;
        }
        Expression filter = keys.size() <= PRUNED_KEYS_MAX ? key.rowsOf(keys) : Expressions.alwaysTrue();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                .useSnapshot(base.get().snapshotId())
                .project(schema)
                .where(filter)
                .build()) {
            for (Record row : records) {
                ByteBuffer rowKey = key.of(row);
                if (rowKey != null && keys.contains(rowKey)) {
                    rows.merge(rowKey, row, UpsertChanges::newer);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read table " + tableName + " at " + base.get(), e);
        } catch (IllegalArgumentException | NotFoundException expired) {
            throw new ChangeQueryException(
                    Reason.GONE,
                    "table " + tableName + " lost " + base.get() + " to snapshot expiry while this query ran;"
                            + " query from a later point");
        }
        return rows;
    }

    /** Of two live rows of one key (a table written by something else), the later in the log, as the job keeps. */
    private static Record newer(Record a, Record b) {
        int partitions = Integer.compare((Integer) a.getField(Rows.PARTITION), (Integer) b.getField(Rows.PARTITION));
        int order = partitions != 0
                ? partitions
                : Long.compare((Long) a.getField(Rows.OFFSET), (Long) b.getField(Rows.OFFSET));
        return order >= 0 ? a : b;
    }
}
