package io.floe.tableflow.changes.stream;

import io.floe.tableflow.changes.ChangeKey;
import io.floe.tableflow.changes.Commit;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An upsert table's initial snapshot, published in bounded, resumable steps rather than one transaction
 * (which {@code transaction.timeout.ms} bounds): each step is one transaction holding the read
 * ({@code r}) events of the snapshot's rows from at most {@link ChangeStreamConfig#offsetsPerTransaction}
 * source offsets, partition by partition in offset order (data files whose offset bounds lie past the
 * position are skipped to, so sparse offsets cost no empty steps), and the progress {@code reading}
 * that snapshot up to where the step got. Once every partition is read up to the snapshot's watermark,
 * steps of at most as many deletes remove the rows the change topic holds that the snapshot does not
 * ({@link PublishedRows}), and the last of them moves the progress to the watermark: the stream then
 * goes on with the table's commits after the snapshot.
 *
 * <p>A restart resumes from the progress the last step committed, reading the same snapshot. When that
 * snapshot has been expired meanwhile, the snapshot starts over from the table's current one: its rows
 * are read again (a consumer sees a second {@code r} for rows the first attempt had read), and the
 * deletes at the end are judged against the new snapshot alone, so rows deleted in between go too.
 */
final class SnapshotSteps {

    private static final Logger LOGGER = LoggerFactory.getLogger(SnapshotSteps.class);

    /** One transaction with its records and the progress after it. */
    @FunctionalInterface
    interface Transaction {
        void run(Progress after, Body body);
    }

    /** What a step sends. */
    @FunctionalInterface
    interface Body {
        void send(Outbox outbox) throws IOException;
    }

    private record Range(int partition, long from, long until) {}

    private final String topic;
    private final long offsetsMax;
    private final StreamLink link;
    private final StreamMetrics metrics;
    private final Clock clock;

    SnapshotSteps(String topic, long offsetsMax, StreamLink link, StreamMetrics metrics, Clock clock) {
        this.topic = topic;
        this.offsetsMax = offsetsMax;
        this.link = link;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** The progress of a snapshot of the table's current snapshot about to start: nothing read, nothing committed. */
    static Progress start(Table table, Progress from) {
        long snapshotId = table.currentSnapshot().snapshotId();
        return new Progress(Offsets.START, from.origin(), OptionalLong.of(snapshotId), snapshotId, from.transaction());
    }

    /** The watermark of the table's snapshot {@code snapshotId} (its own or its nearest ancestor's); empty when expired. */
    static Optional<Offsets> watermark(Table table, long snapshotId) {
        Snapshot snapshot = table.snapshot(snapshotId);
        while (snapshot != null) {
            String text = snapshot.summary().get(Watermark.SUMMARY_PROPERTY);
            if (text != null) {
                return Optional.of(Offsets.of(Watermark.parse(text).nextOffsets()));
            }
            snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
        }
        return Optional.empty();
    }

    /**
     * One step of the snapshot {@code progress} is reading; returns the progress after it (uncommitted, when
     * the snapshot was expired and starts over: the caller steps again).
     */
    Progress step(
            Table table,
            Progress progress,
            String changeTopic,
            DebeziumEnvelope.Origin origin,
            Transaction transaction) {
        long snapshotId = progress.reading().orElseThrow();
        Optional<Offsets> end = watermark(table, snapshotId);
        if (end.isEmpty()) {
            Progress restarted = start(table, progress);
            metrics.snapshotRestarted();
            LOGGER.warn(
                    "the snapshot {} that the change topic of topic={} was publishing was expired; starting over from"
                            + " snapshot {} (rows published so far are read again)",
                    snapshotId,
                    topic,
                    restarted.snapshotId());
            return restarted;
        }
        Snapshot snapshot = table.snapshot(snapshotId);
        Commit commit = new Commit(snapshotId, Instant.ofEpochMilli(snapshot.timestampMillis()));
        Schema schema = table.schema();
        DebeziumEnvelope envelope = new DebeziumEnvelope(origin, schema.asStruct());
        Offsets cursor = ChangeStream.over(progress.next(), end.get().next().keySet());
        if (cursor.equals(end.get())) {
            return deleteStale(progress, end.get(), commit, changeTopic, envelope, transaction);
        }
        TreeMap<Integer, Long> next = new TreeMap<>(cursor.next());
        List<Range> ranges = plan(table, snapshotId, cursor, end.get(), next);
        ChangeKey keys = new ChangeKey(schema);
        Progress after = progress.readingTo(snapshotId, new Offsets(next));
        transaction.run(
                after,
                outbox -> read(table, snapshotId, schema, ranges, row -> {
                    int partition = (Integer) row.getField(Rows.PARTITION);
                    long offset = (Long) row.getField(Rows.OFFSET);
                    long timestampMs = ((OffsetDateTime) row.getField(Rows.TIMESTAMP))
                            .toInstant()
                            .toEpochMilli();
                    outbox.send(
                            partition,
                            keys.kafkaKey(row),
                            envelope.read(row, commit, partition, offset, timestampMs, clock.millis()));
                }));
        LOGGER.info(
                "published snapshot rows topic={} changeTopic={} snapshot={} read={} of={}",
                topic,
                changeTopic,
                snapshotId,
                after.next(),
                end.get());
        return after;
    }

    /**
     * The ranges of the next step, from {@code cursor} on, at most {@link #offsetsMax} offsets together;
     * {@code next} is moved to where they end.
     */
    private List<Range> plan(Table table, long snapshotId, Offsets cursor, Offsets end, TreeMap<Integer, Long> next) {
        List<Range> ranges = new ArrayList<>();
        long room = offsetsMax;
        for (int partition : end.next().keySet()) {
            long at = cursor.get(partition);
            long stop = end.get(partition);
            if (at >= stop) {
                continue;
            }
            long from = firstOffset(table, snapshotId, partition, at, stop);
            long until = from + Math.min(room, stop - from);
            if (until > from) {
                ranges.add(new Range(partition, from, until));
            }
            next.put(partition, until);
            room -= until - from;
            if (room == 0) {
                break;
            }
        }
        return ranges;
    }

    /** The lowest offset at or after {@code at} that a data file of the partition may hold; {@code stop} when none. */
    private static long firstOffset(Table table, long snapshotId, int partition, long at, long stop) {
        Types.NestedField field = table.schema().findField(Rows.OFFSET);
        long first = stop;
        try (CloseableIterable<FileScanTask> tasks = table.newScan()
                .useSnapshot(snapshotId)
                .filter(Expressions.and(
                        Expressions.equal(Rows.PARTITION, partition),
                        Expressions.greaterThanOrEqual(Rows.OFFSET, at),
                        Expressions.lessThan(Rows.OFFSET, stop)))
                .planFiles()) {
            for (FileScanTask task : tasks) {
                ByteBuffer lower = task.file().lowerBounds() == null
                        ? null
                        : task.file().lowerBounds().get(field.fieldId());
                long low = lower == null ? at : Conversions.<Long>fromByteBuffer(field.type(), lower);
                first = Math.min(first, Math.max(at, low));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot plan the snapshot's files of topic " + table.name(), e);
        }
        return first;
    }

    @FunctionalInterface
    private interface RowSink {
        void accept(Record row) throws IOException;
    }

    /**
     * Reads the rows of every range of a step in one scan: a data file holds rows of many partitions, so a
     * scan per range would read each file once per partition it holds.
     */
    private static void read(Table table, long snapshotId, Schema schema, List<Range> ranges, RowSink sink)
            throws IOException {
        Expression inRanges = Expressions.alwaysFalse();
        for (Range range : ranges) {
            inRanges = Expressions.or(
                    inRanges,
                    Expressions.and(
                            Expressions.equal(Rows.PARTITION, range.partition()),
                            Expressions.greaterThanOrEqual(Rows.OFFSET, range.from()),
                            Expressions.lessThan(Rows.OFFSET, range.until())));
        }
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table)
                .useSnapshot(snapshotId)
                .where(inRanges)
                .project(schema)
                .build()) {
            for (Record row : rows) {
                sink.accept(row);
            }
        }
    }

    /**
     * A step of deletes once every row is out: a {@code d} event and a tombstone for at most {@link
     * #offsetsMax} stale rows; the one that leaves none moves the progress to the snapshot's watermark.
     */
    private Progress deleteStale(
            Progress progress,
            Offsets end,
            Commit commit,
            String changeTopic,
            DebeziumEnvelope envelope,
            Transaction transaction) {
        List<PublishedRows.Stale> stale = PublishedRows.notIn(link, changeTopic, commit.snapshotId());
        List<PublishedRows.Stale> now = stale.subList(0, (int) Math.min(stale.size(), offsetsMax));
        boolean last = now.size() == stale.size();
        Progress after = last ? progress.published(end, commit.snapshotId()) : progress.renewed();
        transaction.run(after, outbox -> {
            for (PublishedRows.Stale row : now) {
                outbox.send(
                        row.partition(),
                        row.key(),
                        envelope.deleteOf(row.afterJson(), commit, row.partition(), clock.millis()));
                outbox.send(row.partition(), row.key(), null);
            }
        });
        if (last) {
            metrics.snapshot();
            LOGGER.info(
                    "published snapshot topic={} changeTopic={} snapshot={} to={} deletedSinceLastPublished={}",
                    topic,
                    changeTopic,
                    commit.snapshotId(),
                    end,
                    now.size());
        }
        return after;
    }
}
