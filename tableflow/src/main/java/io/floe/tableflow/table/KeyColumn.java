package io.floe.tableflow.table;

import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.KeyRows.Location;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * Reads the key column of a data file's live rows (its deletes applied), with each row's position
 * and place in the log: the only columns finding a key's row needs, so values are never decoded.
 */
final class KeyColumn {

    private KeyColumn() {}

    /** Takes the rows read; false stops the read. */
    @FunctionalInterface
    interface RowSink {
        boolean take(ByteBuffer key, Location row);
    }

    /**
     * Gives each live row of {@code task} that has a key to {@code sink}, until it says stop, and returns
     * how many live rows were decoded.
     */
    static long read(Table table, FileScanTask task, RowSink sink) {
        DataFile file = task.file();
        Schema projected = new Schema(
                table.schema().findField(Rows.KEY),
                table.schema().findField(Rows.PARTITION),
                table.schema().findField(Rows.OFFSET),
                MetadataColumns.ROW_POSITION);
        GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, table.schema(), projected);
        Schema required = deletes.requiredSchema();
        CloseableIterable<Record> all = Parquet.read(table.io().newInputFile(file.location(), file.fileSizeInBytes()))
                .project(required)
                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(required, fileSchema))
                .build();
        long decoded = 0;
        try (CloseableIterable<Record> records = deletes.filter(all)) {
            for (Record record : records) {
                decoded++;
                ByteBuffer key = (ByteBuffer) record.getField(Rows.KEY);
                // A row without a key is not one the upsert job wrote: no key reaches it.
                if (key != null && !sink.take(key, location(file, record))) {
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the keys of " + file.location() + " in " + table.name(), e);
        }
        return decoded;
    }

    private static Location location(DataFile file, Record record) {
        return new Location(
                file,
                (Long) record.getField(MetadataColumns.ROW_POSITION.name()),
                (Integer) record.getField(Rows.PARTITION),
                (Long) record.getField(Rows.OFFSET));
    }
}
