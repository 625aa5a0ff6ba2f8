package io.floe.engines;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;

/**
 * Reads a Delta table as a plain-Java Delta reader does: Delta Kernel's scan of the latest version, its
 * default engine's Parquet reader (Hadoop's file system), and the scan's transform, which applies the
 * column mapping and the deletion vectors. Kernel returns a column whose id matches no field of a file
 * as all nulls, without an error, so callers compare values, not counts. Loaded by
 * {@link KernelClassLoader} only (see {@link DeltaReader#kernel()}), where Kernel's Parquet release is.
 */
final class KernelReads implements DeltaReader {

    /** The Delta transaction whose version is the Iceberg sequence number the log mirrors (Floe's). */
    private static final String ICEBERG_TRANSACTION = "floe.iceberg";

    private static final String COLUMN_ID = "delta.columnMapping.id";

    private final Engine engine = DefaultEngine.create(new Configuration());

    @Override
    public List<Map<String, Object>> rows(String location) {
        Snapshot snapshot = TableManager.loadSnapshot(location).build(engine);
        Scan scan = snapshot.getScanBuilder().build();
        Row state = scan.getScanState(engine);
        StructType physical = ScanStateRow.getPhysicalDataReadSchema(state);
        List<Map<String, Object>> rows = new ArrayList<>();
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
            while (files.hasNext()) {
                try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
                    while (scanFiles.hasNext()) {
                        readFile(state, physical, scanFiles.next(), rows);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    @Override
    public Optional<Long> mirroredSequence(String location) {
        return TableManager.loadSnapshot(location).build(engine).getLatestTransactionVersion(engine,
                ICEBERG_TRANSACTION);
    }

    @Override
    public Map<String, Long> columnIds(String location) {
        Map<String, Long> ids = new TreeMap<>();
        for (StructField field : TableManager.loadSnapshot(location).build(engine).getSchema().fields()) {
            ids.put(field.getName(), field.getMetadata().getLong(COLUMN_ID));
        }
        return ids;
    }

    private void readFile(Row state, StructType physical, Row scanFile, List<Map<String, Object>> rows)
            throws IOException {
        FileStatus file = InternalScanFileUtils.getAddFileStatus(scanFile);
        CloseableIterator<ColumnarBatch> data = engine.getParquetHandler()
                .readParquetFiles(Utils.singletonCloseableIterator(file), physical, Optional.empty())
                .map(FileReadResult::getData);
        try (CloseableIterator<FilteredColumnarBatch> logical = Scan.transformPhysicalData(engine, state, scanFile,
                data)) {
            while (logical.hasNext()) {
                try (CloseableIterator<Row> batch = logical.next().getRows()) {
                    while (batch.hasNext()) {
                        rows.add(values(batch.next()));
                    }
                }
            }
        }
    }

    /** The row's values by column name; binary as UTF-8 text, timestamps as instants. */
    private static Map<String, Object> values(Row row) {
        Map<String, Object> values = new HashMap<>();
        StructType schema = row.getSchema();
        for (int i = 0; i < schema.length(); i++) {
            values.put(schema.at(i).getName(), row.isNullAt(i) ? null : value(row, i, schema.at(i).getDataType()));
        }
        return values;
    }

    private static Object value(Row row, int i, DataType type) {
        if (type instanceof BinaryType) {
            return new String(row.getBinary(i), StandardCharsets.UTF_8);
        }
        return switch (type.toString()) {
            case "integer" -> row.getInt(i);
            case "long" -> row.getLong(i);
            case "double" -> row.getDouble(i);
            case "string" -> row.getString(i);
            case "boolean" -> row.getBoolean(i);
            case "timestamp" -> Instant.EPOCH.plus(row.getLong(i), ChronoUnit.MICROS);
            // Nested columns (the headers) are not compared here.
            default -> type.toString();
        };
    }
}
