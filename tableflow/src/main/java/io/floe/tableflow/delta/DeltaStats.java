package io.floe.tableflow.delta;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Delta file statistics from an Iceberg data file's metrics: row count, and per column (keyed by its
 * physical path in the Delta schema) null count and lower and upper bounds. Only columns of structs
 * (not inside lists) of types whose bound converts exactly get bounds; the others are left out,
 * which a Delta reader takes as "may hold anything". Iceberg truncates string bounds (a prefix below,
 * a prefix with its last character raised above), which are still bounds, and Delta truncates its own
 * string and timestamp stats the same way. Float and double bounds are left out when the file may
 * hold NaN, which Iceberg's bounds exclude.
 *
 * <p>The statistics are of the whole file, as Iceberg keeps them. When a deletion vector hides some
 * of its rows they are marked wide ({@code tightBounds=false}): a bound still bounds every row that is
 * left but may be a deleted row's value, and {@code numRecords} counts the deleted rows too, as Delta
 * requires of a file with a deletion vector.
 */
final class DeltaStats {

    private DeltaStats() {}

    /**
     * The statistics of {@code file}, keyed by the physical names of {@code delta} (from {@code
     * schema}); wide when a deletion vector hides some of its rows ({@code hasDeletes}).
     */
    static DataFileStatistics of(DataFile file, Schema schema, StructType delta, boolean hasDeletes) {
        Map<Column, Literal> min = new HashMap<>();
        Map<Column, Literal> max = new HashMap<>();
        Map<Column, Long> nulls = new HashMap<>();
        collect(file, schema, delta, List.of(), min, max, nulls);
        return new DataFileStatistics(
                file.recordCount(), min, max, nulls, hasDeletes ? Optional.of(false) : Optional.empty());
    }

    private static void collect(
            DataFile file,
            Schema schema,
            StructType struct,
            List<String> path,
            Map<Column, Literal> min,
            Map<Column, Literal> max,
            Map<Column, Long> nulls) {
        for (StructField field : struct.fields()) {
            List<String> names = new ArrayList<>(path);
            names.add(field.getMetadata().getString(DeltaSchemas.PHYSICAL_NAME));
            if (field.getDataType() instanceof StructType nested) {
                collect(file, schema, nested, names, min, max, nulls);
                continue;
            }
            int id = Math.toIntExact(field.getMetadata().getLong(DeltaSchemas.COLUMN_ID));
            Type type = schema.findType(id);
            if (type == null || !type.isPrimitiveType()) {
                continue;
            }
            Column column = new Column(names.toArray(String[]::new));
            Long nullCount = value(file.nullValueCounts(), id);
            if (nullCount != null) {
                nulls.put(column, nullCount);
            }
            if (mayHoldNaN(file, type, id)) {
                continue;
            }
            Literal lower = literal(type, bound(file.lowerBounds(), id));
            Literal upper = literal(type, bound(file.upperBounds(), id));
            if (lower != null && upper != null) {
                min.put(column, lower);
                max.put(column, upper);
            }
        }
    }

    private static boolean mayHoldNaN(DataFile file, Type type, int id) {
        if (type.typeId() != Type.TypeID.FLOAT && type.typeId() != Type.TypeID.DOUBLE) {
            return false;
        }
        Long nans = value(file.nanValueCounts(), id);
        return nans == null || nans > 0;
    }

    private static <T> T value(Map<Integer, T> values, int id) {
        return values == null ? null : values.get(id);
    }

    private static ByteBuffer bound(Map<Integer, ByteBuffer> bounds, int id) {
        return bounds == null ? null : bounds.get(id);
    }

    /** The bound as a Delta literal of the column's type; null when there is none or it does not convert. */
    private static Literal literal(Type type, ByteBuffer bound) {
        if (bound == null) {
            return null;
        }
        Object value = Conversions.fromByteBuffer(type, bound.duplicate());
        return switch (type.typeId()) {
            case INTEGER -> Literal.ofInt((Integer) value);
            case LONG -> Literal.ofLong((Long) value);
            case FLOAT -> Literal.ofFloat((Float) value);
            case DOUBLE -> Literal.ofDouble((Double) value);
            case DATE -> Literal.ofDate((Integer) value);
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? Literal.ofTimestamp((Long) value)
                        : Literal.ofTimestampNtz((Long) value);
            case STRING -> Literal.ofString(value.toString());
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield Literal.ofDecimal((BigDecimal) value, decimal.precision(), decimal.scale());
            }
            // Delta keeps no bounds of booleans; binary bounds are not worth their bytes.
            default -> null;
        };
    }
}
