package io.floe.tableflow.maintenance;

import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.PinnedTable;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BinPacking;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.StructLikeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Small-file compaction of one table, in three steps on one pinned table: {@link #plan} packs each
 * partition's small data files into groups of at most the target size, {@link #rewrite} streams a
 * group's rows into new files, and {@link #commit} replaces the planned files with the new ones in one
 * snapshot that carries the table's watermark unchanged. The commit is a compare-and-swap on the
 * planned metadata, so a compaction that raced a round fails (and deletes its new files) rather than
 * rebasing onto rows it did not plan.
 *
 * <p>Only files that can be rewritten by reading them alone are planned: Parquet data files of the
 * table's current partition spec with no delete file applying to them (Tableflow writes no deletes, but
 * another engine could). Files are packed next-fit in the order of their smallest
 * {@code (kafka_partition, kafka_offset)}, so each new file holds a contiguous run of the table's
 * rounds, and any two neighbouring groups together exceed the target: a partition ends up with at
 * most about twice the files its bytes need, usually with one more than needed. Rows are copied file
 * after file in that order, not merge-sorted: a merge would keep a reader (a row group and a decompressor) open per input
 * file at once, and the new file's column bounds, which readers prune by, are the same either way. A
 * single-partition topic's rows come out in offset order.
 */
final class Compaction {

    private static final Logger LOGGER = LoggerFactory.getLogger(Compaction.class);

    /** Names the new files, so a listing shows what compaction wrote. */
    static final String FILE_SUFFIX = "-compacted";
    /** Next-fit: a group takes files while they fit, then the next group starts (see the class comment). */
    private static final int BIN_LOOKBACK = 1;
    /** A file whose deletion vector hides at least 1/PURGE_FRACTION of its rows is rewritten without them. */
    static final int PURGE_FRACTION = 10;

    private Compaction() {}

    /**
     * Files of one partition to be rewritten together, in the order their rows are copied, each with
     * the deletion vector (if any) whose rows the rewrite leaves out.
     */
    record Group(PartitionSpec spec, StructLike partition, List<FileScanTask> tasks) {
        List<DataFile> files() {
            return tasks.stream().map(FileScanTask::file).toList();
        }

        /** The deletion vectors of the group's files, which go with them. */
        List<DeleteFile> deletes() {
            return tasks.stream().flatMap(task -> task.deletes().stream()).toList();
        }

        long bytes() {
            return files().stream().mapToLong(DataFile::fileSizeInBytes).sum();
        }

        /** The rows the rewrite must copy: the files' rows less those their deletion vectors hide. */
        long records() {
            return tasks.stream().mapToLong(Compaction::liveRows).sum();
        }
    }

    /** A file's rows not hidden by its deletion vector. */
    static long liveRows(FileScanTask task) {
        return task.file().recordCount()
                - task.deletes().stream().mapToLong(DeleteFile::recordCount).sum();
    }

    /**
     * Whether a file is rewritten for the rows its deletion vector hides: at least a tenth of them. Only
     * deletion vectors count: a v2 position or equality delete file may apply to other files too, so a
     * rewrite could not drop it.
     */
    static boolean worthPurging(FileScanTask task) {
        return !task.deletes().isEmpty()
                && task.deletes().stream().allMatch(ContentFileUtil::isDV)
                && (task.file().recordCount() - liveRows(task)) * PURGE_FRACTION
                        >= task.file().recordCount();
    }

    /**
     * The groups to rewrite, planned from snapshot {@code snapshotId}; {@code more} when the byte budget
     * left groups for the next run.
     */
    record Plan(long snapshotId, List<Group> groups, boolean more) {
        List<DataFile> files() {
            return groups.stream().flatMap(group -> group.files().stream()).toList();
        }

        long bytes() {
            return groups.stream().mapToLong(Group::bytes).sum();
        }
    }

    /** A file below 3/4 of the target is small: two of them may share one new file. */
    static long smallBelow(long targetFileBytes) {
        return targetFileBytes - targetFileBytes / 4;
    }

    /** Plans, rewrites and commits against {@code table} pinned now. Throws only for a failed plan. */
    static CompactionOutcome run(Table table, long targetFileBytes, long bytesMax, Instant now) {
        Table pinned = PinnedTable.pin(table);
        Plan plan = plan(pinned, targetFileBytes, bytesMax);
        if (plan.groups().isEmpty()) {
            return new CompactionOutcome.NothingToDo();
        }
        OutputFileFactory files = outputFiles(pinned, now);
        List<DataFile> added = new ArrayList<>();
        try {
            for (Group group : plan.groups()) {
                added.addAll(rewrite(pinned, group, files, targetFileBytes));
            }
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "compaction failed table={}: {}; its {} new files are removed",
                    table.name(),
                    e.toString(),
                    added.size(),
                    e);
            deleteQuietly(pinned.io(), added);
            return new CompactionOutcome.Failed(e.toString());
        }
        return commit(pinned, plan, added, now);
    }

    /** The groups of small files in {@code pinned}'s current snapshot, most files first, within {@code bytesMax}. */
    static Plan plan(Table pinned, long targetFileBytes, long bytesMax) {
        Snapshot snapshot = pinned.currentSnapshot();
        if (snapshot == null) {
            return new Plan(-1, List.of(), false);
        }
        PartitionSpec spec = pinned.spec();
        StructLikeMap<List<FileScanTask>> small = StructLikeMap.create(spec.partitionType());
        List<String> orderColumns = Stream.of(Rows.PARTITION, Rows.OFFSET)
                .filter(name -> pinned.schema().findField(name) != null)
                .toList();
        try (CloseableIterable<FileScanTask> tasks = pinned.newScan()
                .useSnapshot(snapshot.snapshotId())
                .includeColumnStats(orderColumns)
                .planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                boolean rewritable = task.deletes().isEmpty()
                        ? file.fileSizeInBytes() < smallBelow(targetFileBytes)
                        : worthPurging(task)
                                || (task.deletes().stream().allMatch(ContentFileUtil::isDV)
                                        && file.fileSizeInBytes() < smallBelow(targetFileBytes));
                if (file.specId() == spec.specId() && file.format() == FileFormat.PARQUET && rewritable) {
                    small.computeIfAbsent(file.partition(), () -> new ArrayList<>())
                            .add(task);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot plan the compaction of " + pinned.name(), e);
        }
        Comparator<FileScanTask> order = Comparator.comparing(FileScanTask::file, rowOrder(pinned.schema()));
        BinPacking.ListPacker<FileScanTask> packer = new BinPacking.ListPacker<>(targetFileBytes, BIN_LOOKBACK, false);
        List<Group> groups = new ArrayList<>();
        for (Map.Entry<StructLike, List<FileScanTask>> partition : small.entrySet()) {
            List<FileScanTask> files = new ArrayList<>(partition.getValue());
            files.sort(order);
            for (List<FileScanTask> bin : packer.pack(files, task -> task.file().fileSizeInBytes())) {
                // One file alone is rewritten only to drop the rows its deletion vector hides.
                if (bin.size() > 1 || bin.stream().anyMatch(Compaction::worthPurging)) {
                    groups.add(new Group(spec, partition.getKey(), List.copyOf(bin)));
                }
            }
        }
        // The most files first: the most files gone for the bytes read.
        groups.sort(
                Comparator.comparingInt((Group group) -> group.files().size()).reversed());
        List<Group> chosen = new ArrayList<>();
        long bytes = 0;
        for (Group group : groups) {
            if (!chosen.isEmpty() && bytes + group.bytes() > bytesMax) {
                break;
            }
            chosen.add(group);
            bytes += group.bytes();
        }
        return new Plan(snapshot.snapshotId(), List.copyOf(chosen), chosen.size() < groups.size());
    }

    static OutputFileFactory outputFiles(Table pinned, Instant now) {
        return OutputFileFactory.builderFor(pinned, 0, now.toEpochMilli())
                .format(FileFormat.PARQUET)
                .suffix(FILE_SUFFIX)
                .build();
    }

    /**
     * Copies the rows of {@code group}'s files into new files of about the target size and returns them;
     * on failure deletes what it wrote and throws. The row count read must equal the files' record counts.
     */
    static List<DataFile> rewrite(Table pinned, Group group, OutputFileFactory files, long targetFileBytes) {
        Schema schema = pinned.schema();
        GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(pinned)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(schema)
                .build();
        RollingDataWriter<Record> writer = new RollingDataWriter<>(
                writers,
                files,
                pinned.io(),
                targetFileBytes,
                group.spec(),
                group.spec().isUnpartitioned() ? null : group.partition());
        long rows = 0;
        try {
            try (writer) {
                for (FileScanTask task : group.tasks()) {
                    rows += copy(pinned.io(), schema, task, writer);
                }
            }
            List<DataFile> written = writer.result().dataFiles();
            long writtenRows = written.stream().mapToLong(DataFile::recordCount).sum();
            if (rows != group.records() || writtenRows != rows) {
                throw new IllegalStateException("compaction of " + pinned.name() + " read " + rows
                        + " rows from files holding " + group.records() + " and wrote " + writtenRows);
            }
            return written;
        } catch (IOException | RuntimeException e) {
            try {
                deleteQuietly(pinned.io(), writer.result().dataFiles());
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException(
                        "cannot rewrite " + group.files().size() + " files of " + pinned.name(), io);
            }
            throw (RuntimeException) e;
        }
    }

    /**
     * Replaces the plan's files with {@code added} in one snapshot carrying the table's watermark; a
     * commit that was rejected deletes {@code added}, one whose outcome is unknown keeps them.
     */
    static CompactionOutcome commit(Table pinned, Plan plan, List<DataFile> added, Instant now) {
        List<DataFile> replaced = plan.files();
        RewriteFiles rewrite = pinned.newRewrite().validateFromSnapshot(plan.snapshotId());
        replaced.forEach(rewrite::deleteFile);
        plan.groups().forEach(group -> group.deletes().forEach(rewrite::deleteFile));
        added.forEach(rewrite::addFile);
        // The job resumes from the current snapshot's watermark: the rewrite holds the same records.
        Watermark.of(pinned).ifPresent(mark -> rewrite.set(Watermark.SUMMARY_PROPERTY, mark.toJson()));
        rewrite.set("floe.compacted-at", now.toString());
        try {
            rewrite.commit();
            return new CompactionOutcome.Compacted(replaced.size(), added.size(), plan.bytes(), plan.more());
        } catch (CommitFailedException | ValidationException e) {
            LOGGER.info(
                    "compaction lost to another commit table={}: {}; its {} new files are removed",
                    pinned.name(),
                    e.getMessage(),
                    added.size());
            deleteQuietly(pinned.io(), added);
            return new CompactionOutcome.Conflict(e.getMessage());
        } catch (CommitStateUnknownException e) {
            LOGGER.warn(
                    "compaction commit outcome unknown table={}: {}; its {} new files stay",
                    pinned.name(),
                    e.getMessage(),
                    added.size());
            return new CompactionOutcome.Unknown(e.getMessage());
        }
    }

    /** Copies the rows of a task's file that its deletion vector does not hide. */
    private static long copy(FileIO io, Schema schema, FileScanTask task, RollingDataWriter<Record> writer)
            throws IOException {
        DataFile file = task.file();
        long rows = 0;
        // With deletes the reader also reads each row's position (a column after the table's, which the
        // writer of the table's schema leaves out).
        GenericDeleteFilter deletes =
                task.deletes().isEmpty() ? null : new GenericDeleteFilter(io, task, schema, schema);
        Schema read = deletes == null ? schema : deletes.requiredSchema();
        CloseableIterable<Record> all = Parquet.read(io.newInputFile(file.location(), file.fileSizeInBytes()))
                .project(read)
                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(read, fileSchema))
                .build();
        try (CloseableIterable<Record> records = deletes == null ? all : deletes.filter(all)) {
            for (Record record : records) {
                writer.write(record);
                rows++;
            }
        }
        return rows;
    }

    /** By smallest {@code kafka_partition}, then smallest {@code kafka_offset} (the files' column bounds), then location. */
    private static Comparator<DataFile> rowOrder(Schema schema) {
        Types.NestedField partition = schema.findField(Rows.PARTITION);
        Types.NestedField offset = schema.findField(Rows.OFFSET);
        return Comparator.<DataFile>comparingLong(file -> lowerBound(file, partition))
                .thenComparingLong(file -> lowerBound(file, offset))
                .thenComparing(DataFile::location);
    }

    private static long lowerBound(DataFile file, Types.NestedField field) {
        Map<Integer, ByteBuffer> bounds = file.lowerBounds();
        ByteBuffer bound = field == null || bounds == null ? null : bounds.get(field.fieldId());
        if (bound == null) {
            return Long.MAX_VALUE;
        }
        Object value = Conversions.fromByteBuffer(field.type(), bound);
        return value instanceof Number number ? number.longValue() : Long.MAX_VALUE;
    }

    private static void deleteQuietly(FileIO io, List<DataFile> files) {
        for (DataFile file : files) {
            try {
                io.deleteFile(file.location());
            } catch (RuntimeException e) {
                LOGGER.debug(
                        "cannot remove compaction output {} (orphan removal will): {}", file.location(), e.toString());
            }
        }
    }
}
