package io.floe.tableflow.delta;

import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FieldMetadata;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Delta schema of an Iceberg table, for Delta's column mapping in {@code id} mode: every field
 * carries its Iceberg field id as {@code delta.columnMapping.id} and its Iceberg name as
 * {@code delta.columnMapping.physicalName}, so a Delta reader finds each column in the Parquet files
 * Iceberg wrote by the field id those files carry. A column renamed in Iceberg keeps its id and, in
 * the Delta schema, the physical name it was first published with (Delta never changes one). Types
 * without a Delta equivalent (time, uuid, fixed, maps, nanosecond timestamps) are refused with an
 * {@link IllegalArgumentException} naming the column.
 */
final class DeltaSchemas {

    static final String COLUMN_ID = "delta.columnMapping.id";
    static final String PHYSICAL_NAME = "delta.columnMapping.physicalName";

    private DeltaSchemas() {}

    /** The Delta schema of {@code schema}, keeping the physical names {@code published} gives its ids. */
    static StructType of(Schema schema, StructType published) {
        Map<Long, String> physicalNames = new HashMap<>();
        if (published != null) {
            collectPhysicalNames(published, physicalNames);
        }
        return struct(schema.asStruct(), "", physicalNames);
    }

    private static void collectPhysicalNames(DataType type, Map<Long, String> names) {
        if (type instanceof StructType struct) {
            for (StructField field : struct.fields()) {
                FieldMetadata metadata = field.getMetadata();
                if (metadata.contains(COLUMN_ID) && metadata.contains(PHYSICAL_NAME)) {
                    names.put(metadata.getLong(COLUMN_ID), metadata.getString(PHYSICAL_NAME));
                }
                collectPhysicalNames(field.getDataType(), names);
            }
        } else if (type instanceof ArrayType array) {
            collectPhysicalNames(array.getElementType(), names);
        }
    }

    private static StructType struct(Types.StructType struct, String path, Map<Long, String> physicalNames) {
        StructType result = new StructType();
        for (Types.NestedField field : struct.fields()) {
            String name = path + field.name();
            FieldMetadata metadata = FieldMetadata.builder()
                    .putLong(COLUMN_ID, field.fieldId())
                    .putString(PHYSICAL_NAME, physicalNames.getOrDefault((long) field.fieldId(), field.name()))
                    .build();
            result = result.add(new StructField(
                    field.name(), type(field.type(), name, physicalNames), field.isOptional(), metadata));
        }
        return result;
    }

    private static DataType type(Type type, String name, Map<Long, String> physicalNames) {
        return switch (type.typeId()) {
            case BOOLEAN -> BooleanType.BOOLEAN;
            case INTEGER -> IntegerType.INTEGER;
            case LONG -> LongType.LONG;
            case FLOAT -> FloatType.FLOAT;
            case DOUBLE -> DoubleType.DOUBLE;
            case DATE -> DateType.DATE;
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? TimestampType.TIMESTAMP
                        : TimestampNTZType.TIMESTAMP_NTZ;
            case STRING -> StringType.STRING;
            case BINARY -> BinaryType.BINARY;
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield new DecimalType(decimal.precision(), decimal.scale());
            }
            case STRUCT -> struct(type.asStructType(), name + ".", physicalNames);
            case LIST -> {
                Types.ListType list = type.asListType();
                yield new ArrayType(
                        type(list.elementType(), name + ".element", physicalNames), list.isElementOptional());
            }
            default ->
                throw new IllegalArgumentException(
                        "column " + name + " of Iceberg type " + type + " has no Delta equivalent");
        };
    }
}
