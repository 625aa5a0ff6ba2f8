package io.floe.tableflow.table;

import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.LogRetention;
import io.floe.core.topic.Topic;
import io.floe.tableflow.config.TableMode;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.rows.RowException;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.UpsertRecords;
import io.floe.tableflow.rows.ValueDecoder;
import io.floe.tableflow.source.CommittedLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Materializes one topic: each {@link #run round} reads the records committed since the table's
 * {@link Watermark}, writes them as Parquet data files, and commits one snapshot that adds the files
 * and carries the advanced watermark. The commit is a compare-and-swap on the table's metadata pointer
 * with Iceberg's retries turned off, so a stale writer (a zombie whose lease ran out) fails instead of
 * appending the same records again; every round starts from what the table itself says it holds. A
 * round claims its tables for its lease's epoch before it reads them, and every commit is fenced by that
 * epoch ({@link LeaseFence}): once another agent claimed the table, this round commits nothing.
 *
 * <p>Records whose value does not fit the schema go to the dead-letter table, committed before the
 * main table with a watermark at least the main table's new one, so a dead letter below the main
 * table's watermark is always in the dead-letter table, and one below the dead-letter table's
 * watermark is never written twice; a crash or failure between the two commits leaves both true.
 *
 * <p>A file is deleted only when no commit can reference it: the round failed before committing it,
 * or its commit was rejected ({@link SnapshotCommit}). After an unknown outcome the files stay.
 */
final class TableJob {

    private static final Logger LOGGER = LoggerFactory.getLogger(TableJob.class);

    private final String topicName;
    private final TableCatalog catalog;
    private final LogReads metadata;
    private final CommittedLog log;
    private final Clock clock;
    private final TableMetrics metrics;
    private final long maxBytesPerRound;
    private final RetentionHold hold;
    private int rotation;
    private String decoderSchema;
    private ValueDecoder decoder;
    /** Where an upsert table's keys have their rows. */
    private final KeyLocator keys;

    TableJob(
            String topicName,
            TableCatalog catalog,
            LogReads metadata,
            LogRetention retention,
            CommittedLog log,
            Clock clock,
            TableMetrics metrics,
            long maxBytesPerRound,
            KeyIndexBudget keyIndexes) {
        this.topicName = topicName;
        this.catalog = catalog;
        this.metadata = metadata;
        this.log = log;
        this.clock = clock;
        this.metrics = metrics;
        this.maxBytesPerRound = maxBytesPerRound;
        this.hold = new RetentionHold(retention, topicName);
        this.keys = new KeyLocator(clock, metrics, keyIndexes, topicName);
    }

    /** What a round did. */
    record Outcome(
            long records,
            long deadLetters,
            int dataFiles,
            boolean committed,
            boolean moreWaiting,
            long lagRecords,
            Watermark watermark) {}

    /**
     * One round: reads what arrived since the watermark (at most about {@code maxBytesPerRound}) and
     * commits it. Returns what it did; a commit that lost the race to another writer throws
     * {@link CommitFailedException} after removing the files it wrote. A commit whose outcome is unknown
     * throws what it threw and keeps its files (they may be in the table now); the next round finds out
     * from the tables' watermarks.
     */
    Outcome run(Topic topic, TableSettings settings, LeaseFence fence) {
        ValueDecoder values = decoder(settings);
        // Claimed before anything is read: from here on no holder of an older lease commits to the table.
        Table table = PinnedTable.pin(fence.claim(catalog.loadOrCreate(
                topicName, Rows.tableSchema(values.valueType(), settings.upsertKeyColumns()), settings)));
        Schema schema = table.schema();
        Watermark watermark = Watermark.of(table)
                .filter(mark -> mark.topicId().equals(topic.id()))
                .orElse(Watermark.empty(topic.id()));
        hold.beforeRound(watermark, topic.partitionCount());
        Optional<Table> deadLetters =
                catalog.loadDeadLetters(topicName).map(fence::claim).map(PinnedTable::pin);
        Watermark deadLetterMark = deadLetters
                .flatMap(Watermark::of)
                .filter(mark -> mark.topicId().equals(topic.id()))
                .orElse(Watermark.empty(topic.id()));

        UpsertRound upserts = TableCatalog.modeOf(table) == TableMode.UPSERT ? new UpsertRound() : null;
        UpsertRecords keyed = upserts == null ? null : new UpsertRecords(schema, values);
        if (upserts != null) {
            keys.prepare(table, keyed.key(), settings.upsertIndexMaxKeys());
        }
        Writers writers = new Writers(table, deadLetters.orElse(null), deadLetterMark, settings, fence);
        Map<Integer, Long> advanced = new HashMap<>();
        long[] counts = new long[2];
        long budget = maxBytesPerRound;
        long lag = 0;
        long skippedByRetention = 0; // counted once the round commits: a failed round is read again
        boolean moreWaiting = false;
        int partitions = topic.partitionCount();
        int first = Math.floorMod(rotation++, Math.max(1, partitions));
        Watermark target;
        List<DataFile> deadFiles;
        List<DataFile> files;
        UpsertRound.Written written;
        try {
            for (int i = 0; i < partitions; i++) {
                int partition = (first + i) % partitions;
                TopicPartition tp = new TopicPartition(topic.name(), partition);
                LogOffsets offsets = metadata.offsets(tp);
                long from = watermark.next(partition) < 0 ? offsets.logStartOffset() : watermark.next(partition);
                if (from < offsets.logStartOffset()) {
                    skippedByRetention += offsets.logStartOffset() - from;
                    LOGGER.warn(
                            "records expired before the table got them table={} partition={} offsets=[{}, {})",
                            topicName,
                            partition,
                            from,
                            offsets.logStartOffset());
                    from = offsets.logStartOffset();
                }
                // Only committed records: above the last stable offset a transaction may still abort.
                long until = offsets.lastStableOffset();
                if (from >= until || budget <= 0) {
                    if (from < until) {
                        moreWaiting = true;
                        lag += until - from;
                    }
                    if (from != watermark.next(partition)) {
                        advanced.put(partition, from);
                    }
                    continue;
                }
                long deadBelow = deadLetterMark.next(partition);
                CommittedLog.Progress progress = log.read(tp, from, until, budget, record -> {
                    try {
                        if (upserts != null) {
                            upserts.apply(keyed.change(partition, record));
                        } else {
                            writers.write(Rows.row(
                                    schema,
                                    partition,
                                    record,
                                    values.decode(record.hasValue() ? record.value() : null)));
                        }
                        counts[0]++;
                    } catch (RowException e) {
                        if (record.offset() >= deadBelow) {
                            writers.deadLetter(
                                    Rows.deadLetter(writers.deadLetterSchema(), partition, record, e.getMessage()));
                            counts[1]++;
                        }
                    }
                });
                budget -= progress.bytes();
                skippedByRetention += progress.skippedByRetention();
                long next = progress.next();
                advanced.put(partition, next);
                if (next < until) {
                    moreWaiting = true;
                    lag += until - next;
                }
            }
            target = watermark.with(advanced);
            if (target.equals(watermark)) {
                writers.abort();
                return new Outcome(0, 0, 0, false, false, lag, watermark);
            }
            deadFiles = writers.closeDeadLetters();
            files = writers.close();
            written = upserts == null
                    ? null
                    : upserts.write(
                            table,
                            keys.rowsOf(table, keyed.key(), upserts.keys()),
                            settings.targetFileBytes(),
                            clock.millis());
        } catch (RuntimeException e) {
            // Nothing of this round was committed yet: every file it wrote can go.
            writers.abort();
            throw e;
        }
        List<? extends ContentFile<?>> newFiles = written == null ? files : written.newFiles();
        commitDeadLetters(writers.deadTable, deadFiles, deadLetterMark.atLeast(target), table, newFiles);
        if (written == null) {
            throwUnlessCommitted(SnapshotCommit.append(table, files, target, RecordDecoding.of(settings), clock));
        } else {
            commitUpserts(table, written, target, RecordDecoding.of(settings), settings.upsertIndexMaxKeys());
            files = written.dataFiles();
        }
        hold.afterCommit(target);
        metrics.skippedByRetention(skippedByRetention);
        metrics.committed(counts[0], counts[1], files.size());
        return new Outcome(counts[0], counts[1], files.size(), true, moreWaiting, lag, target);
    }

    /** Commits an upsert round and moves the key index to the new snapshot (or drops it when unsure). */
    private void commitUpserts(
            Table table, UpsertRound.Written written, Watermark target, RecordDecoding decoding, long maxKeys) {
        SnapshotCommit.Outcome outcome = SnapshotCommit.rowDelta(table, written, target, decoding, clock);
        keys.afterCommit(table, written, target, outcome instanceof SnapshotCommit.Outcome.Committed, maxKeys);
        throwUnlessCommitted(outcome);
    }

    /**
     * Commits the round's dead letters before its rows, with the dead-letter table's own watermark raised
     * to the round's: so every dead letter below the main table's watermark is in the dead-letter table,
     * and one below the dead-letter table's watermark is never written again. The dead-letter watermark
     * never goes down (a later round may start lower, from a main table whose commit failed, and read
     * other partitions first); without that a dead letter below the old mark would be written twice.
     * When this commit did not definitely apply, the rows are not committed (their files go, as no
     * commit ever referenced them) and the round fails.
     */
    private void commitDeadLetters(
            Table deadTable,
            List<DataFile> deadFiles,
            Watermark deadMark,
            Table table,
            List<? extends ContentFile<?>> files) {
        if (deadFiles.isEmpty()) {
            return;
        }
        SnapshotCommit.Outcome outcome = SnapshotCommit.append(deadTable, deadFiles, deadMark, "dead letters", clock);
        if (!(outcome instanceof SnapshotCommit.Outcome.Committed)) {
            SnapshotCommit.deleteUncommitted(table, files);
        }
        throwUnlessCommitted(outcome);
    }

    /** Rethrows what made a commit fail: a rejection as such (the caller counts a conflict), else unknown. */
    private void throwUnlessCommitted(SnapshotCommit.Outcome outcome) {
        if (outcome instanceof SnapshotCommit.Outcome.Rejected rejected) {
            throw rejected.cause();
        }
        if (outcome instanceof SnapshotCommit.Outcome.Unknown unknown) {
            metrics.unknownOutcome();
            throw unknown.cause();
        }
    }

    /** The table left this agent (its lease moved, it was turned off): what it held in memory goes. */
    void close() {
        keys.close();
    }

    /** Stops holding retention back for this table (it is stalled; see {@link RetentionHold#release}). */
    void releaseRetention() {
        hold.release();
    }

    private ValueDecoder decoder(TableSettings settings) {
        String key = settings.format() + "\n" + settings.confluentFraming() + "\n" + settings.schema();
        if (!key.equals(decoderSchema)) {
            decoder = ValueDecoder.of(settings);
            decoderSchema = key;
        }
        return decoder;
    }

    /** The round's data writers: the table's, partitioned by its spec, and the dead-letter table's, opened lazily. */
    private final class Writers {
        private final Table table;
        private final TableSettings settings;
        private final FanoutDataWriter<Record> data;
        private final PartitionKey key;
        private final InternalRecordWrapper wrapper;
        private final Watermark deadLetterMark;
        private final LeaseFence fence;
        private FanoutDataWriter<Record> dead;
        private Table deadTable;

        Writers(Table table, Table deadTable, Watermark deadLetterMark, TableSettings settings, LeaseFence fence) {
            this.table = table;
            this.deadTable = deadTable;
            this.deadLetterMark = deadLetterMark;
            this.settings = settings;
            this.fence = fence;
            this.data = writer(table, settings.targetFileBytes());
            this.key = new PartitionKey(table.spec(), table.schema());
            this.wrapper = new InternalRecordWrapper(table.schema().asStruct());
        }

        void write(GenericRecord row) {
            if (table.spec().isUnpartitioned()) {
                data.write(row, table.spec(), null);
            } else {
                key.partition(wrapper.wrap(row));
                data.write(row, table.spec(), key);
            }
        }

        Schema deadLetterSchema() {
            if (deadTable == null) {
                deadTable = PinnedTable.pin(fence.claim(catalog.loadOrCreateDeadLetters(topicName)));
                // The round decided which dead letters to write from the table as it was at the start
                // (none then); another writer that committed dead letters since would see them twice.
                Watermark now = Watermark.of(deadTable)
                        .filter(mark -> mark.topicId().equals(deadLetterMark.topicId()))
                        .orElse(Watermark.empty(deadLetterMark.topicId()));
                if (!now.equals(deadLetterMark)) {
                    throw new CommitFailedException(
                            "dead-letter table %s changed since the round began: watermark %s," + " the round read %s",
                            deadTable.name(), now.nextOffsets(), deadLetterMark.nextOffsets());
                }
            }
            if (dead == null) {
                dead = writer(deadTable, settings.targetFileBytes());
            }
            return deadTable.schema();
        }

        void deadLetter(GenericRecord row) {
            deadLetterSchema();
            dead.write(row, deadTable.spec(), null);
        }

        List<DataFile> closeDeadLetters() {
            if (dead == null) {
                return List.of();
            }
            return files(dead);
        }

        List<DataFile> close() {
            return files(data);
        }

        void abort() {
            for (FanoutDataWriter<Record> writer : java.util.Arrays.asList(data, dead)) {
                if (writer == null) {
                    continue;
                }
                try {
                    writer.close();
                    DataWriteResult result = writer.result();
                    SnapshotCommit.deleteUncommitted(writer == data ? table : deadTable, result.dataFiles());
                } catch (IOException | RuntimeException e) {
                    LOGGER.debug("cannot clean up an aborted round of {}: {}", topicName, e.toString());
                }
            }
        }

        private List<DataFile> files(FanoutDataWriter<Record> writer) {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close the data files of " + topicName, e);
            }
            return new ArrayList<>(writer.result().dataFiles());
        }

        private FanoutDataWriter<Record> writer(Table target, long targetFileBytes) {
            GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(target)
                    .dataFileFormat(FileFormat.PARQUET)
                    .dataSchema(target.schema())
                    .build();
            OutputFileFactory files = OutputFileFactory.builderFor(target, 0, clock.millis())
                    .format(FileFormat.PARQUET)
                    .build();
            return new FanoutDataWriter<>(factory, files, target.io(), targetFileBytes);
        }
    }
}
