package io.floe.tableflow.table;

import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.UpsertKey;
import io.floe.tableflow.table.KeyRows.Location;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.iceberg.types.Types;

/**
 * Reads the key columns of a data file's live rows (its deletes applied), with each row's position and
 * place in the log: the only columns finding a key's row needs, so the other values are never decoded.
 */
final class KeyColumn {

    private KeyColumn() {}

    /** Takes the rows read; false stops the read. */
    @FunctionalInterface
    interface RowSink {
        boolean take(ByteBuffer key, Location row);
    }

    /**
     * Gives each live row of {@code task} that has a {@code key} to {@code sink}, until it says stop, and returns
     * how many live rows were decoded.
     */
    static long read(Table table, UpsertKey key, FileScanTask task, RowSink sink) {
        DataFile file = task.file();
        List<Types.NestedField> columns = new ArrayList<>(key.columns());
        columns.add(table.schema().findField(Rows.PARTITION));
        columns.add(table.schema().findField(Rows.OFFSET));
        columns.add(MetadataColumns.ROW_POSITION);
        Schema projected = new Schema(columns);
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
                ByteBuffer rowKey = key.of(record);
                // A row without a key is not one the upsert job wrote: no key reaches it.
                if (rowKey != null && !sink.take(rowKey, location(file, record))) {
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
