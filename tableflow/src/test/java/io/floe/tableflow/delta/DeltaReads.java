package io.floe.tableflow.delta;

import io.delta.kernel.Scan;
import io.delta.kernel.ScanBuilder;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.floe.core.object.ObjectStore;
import io.floe.tableflow.io.ObjectLocations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Reads a table as a Delta reader does (Delta Kernel's scan, its default engine's Parquet reader, the
 * scan's transform that applies column mapping) and as an Iceberg reader does, both into one form: a
 * row is a map from column name to value (timestamps in microseconds, dates in days, binary in hex,
 * structs as maps, lists as lists), so the two compare by value.
 */
public final class DeltaReads {

    private DeltaReads() {}

    /** The rows of the latest version of the Delta table at {@code path}, with the files it read. */
    public static List<Map<String, Object>> deltaRows(ObjectStore store, ObjectLocations locations, String path) {
        return deltaRows(store, locations, path, Optional.empty(), new ArrayList<>());
    }

    /**
     * The rows of the files a Delta scan with {@code filter} keeps (pruned by their statistics, rows
     * not filtered), and those files in {@code kept}.
     */
    public static List<Map<String, Object>> deltaRows(
            ObjectStore store, ObjectLocations locations, String path, Optional<Predicate> filter, List<String> kept) {
        Engine engine = DefaultEngine.create(new DeltaFileIO(store, locations));
        return deltaRows(engine, TableManager.loadSnapshot(path).build(engine), filter, kept);
    }

    /** The rows of version {@code version} of the Delta table at {@code path} (time travel), with the files it read. */
    public static List<Map<String, Object>> deltaRowsAt(
            ObjectStore store, ObjectLocations locations, String path, long version, List<String> kept) {
        Engine engine = DefaultEngine.create(new DeltaFileIO(store, locations));
        return deltaRows(
                engine, TableManager.loadSnapshot(path).atVersion(version).build(engine), Optional.empty(), kept);
    }

    /** The data files version {@code version} of the Delta table at {@code path} references, by location. */
    public static TreeSet<String> deltaFilesAt(
            ObjectStore store, ObjectLocations locations, String path, long version) {
        Engine engine = DefaultEngine.create(new DeltaFileIO(store, locations));
        Snapshot snapshot = TableManager.loadSnapshot(path).atVersion(version).build(engine);
        return new TreeSet<>(LiveFiles.delta(engine, snapshot, locations).keySet());
    }

    /** The latest version of the Delta table at {@code path}. */
    public static long latestVersion(ObjectStore store, ObjectLocations locations, String path) {
        Engine engine = DefaultEngine.create(new DeltaFileIO(store, locations));
        return TableManager.loadSnapshot(path).build(engine).getVersion();
    }

    private static List<Map<String, Object>> deltaRows(
            Engine engine, Snapshot snapshot, Optional<Predicate> filter, List<String> kept) {
        ScanBuilder builder = snapshot.getScanBuilder();
        if (filter.isPresent()) {
            builder = builder.withFilter(filter.get());
        }
        Scan scan = builder.build();
        Row state = scan.getScanState(engine);
        StructType physical = ScanStateRow.getPhysicalDataReadSchema(state);
        List<Map<String, Object>> rows = new ArrayList<>();
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
            while (files.hasNext()) {
                try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
                    while (scanFiles.hasNext()) {
                        Row scanFile = scanFiles.next();
                        FileStatus file = InternalScanFileUtils.getAddFileStatus(scanFile);
                        kept.add(file.getPath());
                        CloseableIterator<ColumnarBatch> data = engine.getParquetHandler()
                                .readParquetFiles(Utils.singletonCloseableIterator(file), physical, Optional.empty())
                                .map(result -> result.getData());
                        try (CloseableIterator<FilteredColumnarBatch> logical =
                                Scan.transformPhysicalData(engine, state, scanFile, data)) {
                            while (logical.hasNext()) {
                                try (CloseableIterator<Row> batch =
                                        logical.next().getRows()) {
                                    while (batch.hasNext()) {
                                        rows.add(struct(batch.next()));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /** The data files the latest Delta version references, by location. */
    public static TreeSet<String> deltaFiles(ObjectStore store, ObjectLocations locations, String path) {
        Engine engine = DefaultEngine.create(new DeltaFileIO(store, locations));
        Snapshot snapshot = TableManager.loadSnapshot(path).build(engine);
        return new TreeSet<>(LiveFiles.delta(engine, snapshot, locations).keySet());
    }

    /**
     * The data files of the latest Delta version by location, each with its deletion vector as
     * {@code "<location>@<offset>+<sizeInBytes>#<cardinality>"}, or {@code "none"}.
     */
    public static Map<String, String> deltaVectors(ObjectStore store, ObjectLocations locations, String path) {
        Engine engine = DefaultEngine.create(new DeltaFileIO(store, locations));
        Snapshot snapshot = TableManager.loadSnapshot(path).build(engine);
        Map<String, String> vectors = new TreeMap<>();
        LiveFiles.delta(engine, snapshot, locations)
                .forEach((location, file) -> vectors.put(
                        location,
                        file.vector()
                                .map(dv -> dv.location() + "@" + dv.offset() + "+" + dv.sizeInBytes() + "#"
                                        + dv.cardinality())
                                .orElse("none")));
        return vectors;
    }

    /** The version of transaction {@code application} the latest Delta version holds. */
    public static Optional<Long> transactionVersion(
            ObjectStore store, ObjectLocations locations, String path, String application) {
        Engine engine = DefaultEngine.create(new DeltaFileIO(store, locations));
        return TableManager.loadSnapshot(path).build(engine).getLatestTransactionVersion(engine, application);
    }

    /** Iceberg records in the same form as {@link #deltaRows}. */
    public static List<Map<String, Object>> icebergRows(Table table, List<Record> records) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Record record : records) {
            rows.add(icebergStruct(table.schema().asStruct(), record));
        }
        return rows;
    }

    private static Map<String, Object> icebergStruct(Types.StructType type, Record record) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (Types.NestedField field : type.fields()) {
            row.put(field.name(), iceberg(field.type(), record.getField(field.name())));
        }
        return row;
    }

    private static Object iceberg(org.apache.iceberg.types.Type type, Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof OffsetDateTime time) {
            return ChronoUnit.MICROS.between(OffsetDateTime.parse("1970-01-01T00:00:00Z"), time);
        }
        if (value instanceof LocalDate date) {
            return (int) date.toEpochDay();
        }
        if (value instanceof ByteBuffer bytes) {
            byte[] copy = new byte[bytes.remaining()];
            bytes.duplicate().get(copy);
            return HexFormat.of().formatHex(copy);
        }
        if (value instanceof Record record) {
            return icebergStruct(type.asStructType(), record);
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>();
            for (Object element : list) {
                out.add(iceberg(type.asListType().elementType(), element));
            }
            return out;
        }
        return value;
    }

    private static Map<String, Object> struct(Row row) {
        Map<String, Object> out = new LinkedHashMap<>();
        StructType schema = row.getSchema();
        for (int i = 0; i < schema.length(); i++) {
            StructField field = schema.at(i);
            out.put(field.getName(), row.isNullAt(i) ? null : rowValue(row, i, field.getDataType()));
        }
        return out;
    }

    private static Object rowValue(Row row, int i, DataType type) {
        if (type instanceof StructType) {
            return struct(row.getStruct(i));
        }
        if (type instanceof ArrayType array) {
            return list(row.getArray(i).getElements(), array.getElementType());
        }
        if (type instanceof BinaryType) {
            return HexFormat.of().formatHex(row.getBinary(i));
        }
        return switch (type.toString()) {
            case "boolean" -> row.getBoolean(i);
            case "integer", "date" -> row.getInt(i);
            case "long", "timestamp", "timestamp_ntz" -> row.getLong(i);
            case "double" -> row.getDouble(i);
            case "float" -> row.getFloat(i);
            case "string" -> row.getString(i);
            default -> row.getDecimal(i);
        };
    }

    private static List<Object> list(ColumnVector elements, DataType type) {
        List<Object> out = new ArrayList<>();
        for (int e = 0; e < elements.getSize(); e++) {
            out.add(vectorValue(elements, e, type));
        }
        return out;
    }

    private static Object vectorValue(ColumnVector vector, int i, DataType type) {
        if (vector.isNullAt(i)) {
            return null;
        }
        if (type instanceof StructType struct) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (int f = 0; f < struct.length(); f++) {
                out.put(
                        struct.at(f).getName(),
                        vectorValue(vector.getChild(f), i, struct.at(f).getDataType()));
            }
            return out;
        }
        if (type instanceof ArrayType array) {
            return list(vector.getArray(i).getElements(), array.getElementType());
        }
        if (type instanceof BinaryType) {
            return HexFormat.of().formatHex(vector.getBinary(i));
        }
        return switch (type.toString()) {
            case "boolean" -> vector.getBoolean(i);
            case "integer", "date" -> vector.getInt(i);
            case "long", "timestamp", "timestamp_ntz" -> vector.getLong(i);
            case "double" -> vector.getDouble(i);
            case "float" -> vector.getFloat(i);
            case "string" -> vector.getString(i);
            default -> vector.getDecimal(i);
        };
    }
}
