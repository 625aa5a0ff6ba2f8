package io.floe.tableflow.rows;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Fits plain Java values (what the {@link ValueDecoder}s give) to the Java types Iceberg's generic
 * records hold for a column's type, following the table's current schema (which may have grown
 * wider than the declared one: an int column promoted to long, a new optional field).
 */
final class IcebergValues {

    private IcebergValues() {}

    /** Fills {@code record}'s fields named in {@code values} (others stay null). */
    static void fill(GenericRecord record, Types.StructType type, Map<String, Object> values) throws RowException {
        for (Types.NestedField field : type.fields()) {
            if (values.containsKey(field.name())) {
                record.setField(field.name(), fit(values.get(field.name()), field.type(), field.name()));
            }
        }
    }

    static Object fit(Object value, Type type, String path) throws RowException {
        if (value == null) {
            return null;
        }
        switch (type.typeId()) {
            case STRUCT -> {
                Map<String, Object> values = map(value, path);
                GenericRecord record = GenericRecord.create(type.asStructType());
                for (Types.NestedField field : type.asStructType().fields()) {
                    record.setField(
                            field.name(), fit(values.get(field.name()), field.type(), path + "." + field.name()));
                }
                return record;
            }
            case LIST -> {
                if (!(value instanceof List<?> list)) {
                    throw mismatch(path, "list", value);
                }
                List<Object> fitted = new ArrayList<>(list.size());
                for (Object element : list) {
                    fitted.add(fit(element, type.asListType().elementType(), path + "[]"));
                }
                return fitted;
            }
            case MAP -> {
                Map<String, Object> values = map(value, path);
                Map<Object, Object> fitted = new LinkedHashMap<>();
                for (Map.Entry<String, Object> entry : values.entrySet()) {
                    fitted.put(
                            fit(entry.getKey(), type.asMapType().keyType(), path + ".key"),
                            fit(entry.getValue(), type.asMapType().valueType(), path + ".value"));
                }
                return fitted;
            }
            case BOOLEAN -> {
                return cast(value, Boolean.class, path, "boolean");
            }
            case INTEGER -> {
                long number = cast(value, Number.class, path, "integer").longValue();
                if (number != (int) number) {
                    throw new RowException("field " + path + ": " + number + " does not fit a 32-bit integer");
                }
                return (int) number;
            }
            case LONG -> {
                return cast(value, Number.class, path, "long").longValue();
            }
            case FLOAT -> {
                return cast(value, Number.class, path, "float").floatValue();
            }
            case DOUBLE -> {
                return cast(value, Number.class, path, "double").doubleValue();
            }
            case STRING -> {
                return value.toString();
            }
            case BINARY -> {
                return value instanceof byte[] bytes
                        ? ByteBuffer.wrap(bytes)
                        : cast(value, ByteBuffer.class, path, "bytes");
            }
            case FIXED -> {
                byte[] bytes =
                        value instanceof ByteBuffer buffer ? copy(buffer) : cast(value, byte[].class, path, "fixed");
                if (bytes.length != ((Types.FixedType) type).length()) {
                    throw new RowException("field " + path + ": " + bytes.length + " bytes, expected "
                            + ((Types.FixedType) type).length());
                }
                return bytes;
            }
            case DATE -> {
                return cast(value, LocalDate.class, path, "date");
            }
            case TIME -> {
                return cast(value, LocalTime.class, path, "time");
            }
            case TIMESTAMP -> {
                boolean withZone = ((Types.TimestampType) type).shouldAdjustToUTC();
                if (value instanceof OffsetDateTime time) {
                    return withZone
                            ? time
                            : time.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
                }
                if (value instanceof LocalDateTime time) {
                    return withZone ? time.atOffset(ZoneOffset.UTC) : time;
                }
                throw mismatch(path, "timestamp", value);
            }
            case DECIMAL -> {
                BigDecimal decimal = value instanceof BigDecimal exact ? exact : new BigDecimal(value.toString());
                try {
                    return decimal.setScale(((Types.DecimalType) type).scale(), RoundingMode.UNNECESSARY);
                } catch (ArithmeticException e) {
                    throw new RowException("field " + path + ": " + decimal + " does not fit " + type);
                }
            }
            case UUID -> {
                try {
                    return value instanceof UUID uuid ? uuid : UUID.fromString(value.toString());
                } catch (IllegalArgumentException e) {
                    throw new RowException("field " + path + ": " + value + " is not a UUID");
                }
            }
            default -> throw new RowException("field " + path + ": Iceberg type " + type + " is not supported");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value, String path) throws RowException {
        if (!(value instanceof Map<?, ?>)) {
            throw mismatch(path, "struct", value);
        }
        return (Map<String, Object>) value;
    }

    private static <T> T cast(Object value, Class<T> type, String path, String expected) throws RowException {
        if (!type.isInstance(value)) {
            throw mismatch(path, expected, value);
        }
        return type.cast(value);
    }

    private static RowException mismatch(String path, String expected, Object value) {
        return new RowException("field " + path + ": expected " + expected + ", got "
                + value.getClass().getSimpleName());
    }

    private static byte[] copy(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
