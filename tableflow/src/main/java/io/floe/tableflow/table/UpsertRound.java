package io.floe.tableflow.table;

import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.UpsertRecords;
import io.floe.tableflow.table.KeyRows.Location;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.StructLikeMap;

/**
 * One round of an upsert table: the newest change of each key the round read (a row, or a delete
 * for a tombstone), in log order within each partition, then written as new data files and the
 * deletion vectors that hide each changed key's previous row. A key written twice in a round gets
 * one row. The row positions of the new files are counted as they are written, so the key index
 * learns where each key's row now is without reading anything back.
 */
final class UpsertRound {

    /** Newest change per key; a null row deletes the key. */
    private final Map<ByteBuffer, GenericRecord> changes = new LinkedHashMap<>();

    /** Takes a record's change: a new row for its key, or (no row) the key's delete. */
    void apply(UpsertRecords.Change change) {
        changes.remove(change.key()); // the newest change goes last
        changes.put(change.key(), change.row());
    }

    /** The keys the round changes. */
    Set<ByteBuffer> keys() {
        return changes.keySet();
    }

    /**
     * What a round wrote: its data files and deletion vectors, the vectors they replace (a data file
     * has at most one; a new one carries the old one's positions too), and where each written key's row
     * is.
     */
    record Written(
            List<DataFile> dataFiles,
            List<DeleteFile> deleteFiles,
            List<DeleteFile> rewrittenDeleteFiles,
            Map<ByteBuffer, Location> rows,
            Set<ByteBuffer> deleted) {

        /** The files this round created, which go if its commit is rejected. */
        List<ContentFile<?>> newFiles() {
            List<ContentFile<?>> files = new ArrayList<>(dataFiles);
            files.addAll(deleteFiles);
            return files;
        }

        /** Data files the round's deletes apply to; they must still be in the table when it commits. */
        Set<String> referencedDataFiles() {
            Set<String> paths = new HashSet<>();
            deleteFiles.forEach(vector -> paths.add(vector.referencedDataFile()));
            return paths;
        }
    }

    /** Writes the round against the table as {@code index} describes it (the rows of at least the round's keys). */
    Written write(Table table, KeyRows index, long targetFileBytes, long nowMs) {
        NewRows rows = new NewRows(table, targetFileBytes, nowMs);
        BaseDVFileWriter vectors = new BaseDVFileWriter(
                OutputFileFactory.builderFor(table, 0, nowMs)
                        .format(FileFormat.PUFFIN)
                        .build(),
                path -> previousDeletes(table, index, path));
        Set<ByteBuffer> deleted = new HashSet<>();
        try {
            for (Location duplicate : index.duplicates()) {
                delete(table, vectors, duplicate);
            }
            for (Map.Entry<ByteBuffer, GenericRecord> change : changes.entrySet()) {
                index.find(change.getKey()).ifPresent(previous -> delete(table, vectors, previous));
                if (change.getValue() == null) {
                    deleted.add(change.getKey());
                } else {
                    rows.write(change.getKey(), change.getValue());
                }
            }
            rows.close();
            vectors.close();
        } catch (IOException | RuntimeException e) {
            rows.abort();
            SnapshotCommit.deleteUncommitted(table, vectorsWritten(vectors));
            if (e instanceof IOException io) {
                throw new UncheckedIOException("cannot write the upsert round of " + table.name(), io);
            }
            throw (RuntimeException) e;
        }
        DeleteWriteResult result = vectors.result();
        return new Written(
                List.copyOf(rows.files),
                List.copyOf(result.deleteFiles()),
                List.copyOf(result.rewrittenDeleteFiles()),
                Map.copyOf(rows.locations),
                Set.copyOf(deleted));
    }

    private static void delete(Table table, BaseDVFileWriter vectors, Location row) {
        DataFile file = row.file();
        vectors.delete(file.location(), row.position(), table.specs().get(file.specId()), file.partition());
    }

    private static List<DeleteFile> vectorsWritten(BaseDVFileWriter vectors) {
        try {
            return vectors.result().deleteFiles();
        } catch (RuntimeException notClosed) {
            return List.of();
        }
    }

    /** The positions already deleted in a data file, merged into its new deletion vector; null if none. */
    private static PositionDeleteIndex previousDeletes(Table table, KeyRows index, String dataFile) {
        DeleteFile vector = index.vectorOf(dataFile);
        if (vector == null) {
            return null;
        }
        return new BaseDeleteLoader(file -> table.io().newInputFile(file.location(), file.fileSizeInBytes()))
                .loadPositionDeletes(List.of(vector), dataFile);
    }

    /** The round's new data files, one open per table partition, rolled at the target size. */
    private static final class NewRows {
        private final Table table;
        private final long targetFileBytes;
        private final GenericFileWriterFactory writers;
        private final OutputFileFactory outputs;
        private final PartitionKey partitionKey;
        private final InternalRecordWrapper wrapper;
        private final StructLikeMap<Open> open;
        private Open unpartitioned;
        final List<DataFile> files = new ArrayList<>();
        final Map<ByteBuffer, Location> locations = new HashMap<>();

        /** A data file being written, and the key and log position of each row in position order. */
        private static final class Open {
            final DataWriter<Record> writer;
            final List<ByteBuffer> keys = new ArrayList<>();
            final List<GenericRecord> rows = new ArrayList<>(); // held by the round anyway

            Open(DataWriter<Record> writer) {
                this.writer = writer;
            }
        }

        NewRows(Table table, long targetFileBytes, long nowMs) {
            this.table = table;
            this.targetFileBytes = targetFileBytes;
            this.writers = new GenericFileWriterFactory.Builder(table)
                    .dataFileFormat(FileFormat.PARQUET)
                    .dataSchema(table.schema())
                    .build();
            this.outputs = OutputFileFactory.builderFor(table, 0, nowMs)
                    .format(FileFormat.PARQUET)
                    .build();
            this.partitionKey = new PartitionKey(table.spec(), table.schema());
            this.wrapper = new InternalRecordWrapper(table.schema().asStruct());
            this.open = StructLikeMap.create(table.spec().partitionType());
        }

        void write(ByteBuffer key, GenericRecord row) throws IOException {
            Open file = current(row);
            file.writer.write(row);
            file.keys.add(key);
            file.rows.add(row);
        }

        private Open current(GenericRecord row) throws IOException {
            if (table.spec().isUnpartitioned()) {
                if (unpartitioned != null && unpartitioned.writer.length() >= targetFileBytes) {
                    finish(unpartitioned);
                    unpartitioned = null;
                }
                if (unpartitioned == null) {
                    unpartitioned = new Open(writers.newDataWriter(outputs.newOutputFile(), table.spec(), null));
                }
                return unpartitioned;
            }
            partitionKey.partition(wrapper.wrap(row));
            Open file = open.get(partitionKey);
            if (file != null && file.writer.length() >= targetFileBytes) {
                finish(file);
                open.remove(partitionKey);
                file = null;
            }
            if (file == null) {
                PartitionKey partition = partitionKey.copy();
                file = new Open(
                        writers.newDataWriter(outputs.newOutputFile(table.spec(), partition), table.spec(), partition));
                open.put(partition, file);
            }
            return file;
        }

        private void finish(Open file) throws IOException {
            file.writer.close();
            DataFile written = file.writer.toDataFile();
            files.add(written);
            for (int position = 0; position < file.keys.size(); position++) {
                GenericRecord row = file.rows.get(position);
                int partition = (Integer) row.getField(Rows.PARTITION);
                long offset = (Long) row.getField(Rows.OFFSET);
                locations.put(file.keys.get(position), new Location(written, position, partition, offset));
            }
        }

        void close() throws IOException {
            if (unpartitioned != null) {
                finish(unpartitioned);
                unpartitioned = null;
            }
            for (Open file : open.values()) {
                finish(file);
            }
            open.clear();
        }

        void abort() {
            List<Open> unfinished = new ArrayList<>(open.values());
            if (unpartitioned != null) {
                unfinished.add(unpartitioned);
            }
            for (Open file : unfinished) {
                try {
                    file.writer.close();
                    files.add(file.writer.toDataFile());
                } catch (IOException | RuntimeException e) {
                    // an undeleted file is an orphan that table maintenance removes later
                }
            }
            SnapshotCommit.deleteUncommitted(table, files);
        }
    }
}
