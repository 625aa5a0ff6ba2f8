package io.floe.tableflow.rows;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.types.Types;

/**
 * Avro binary values of the record schema given in the topic config (Iceberg's own Avro-to-Iceberg
 * type mapping gives the columns). With Confluent framing, each value starts with a zero magic byte
 * and a 4-byte schema id, which are skipped: the declared schema is the one used to read. A value
 * that does not decode completely, or has bytes left over, does not fit.
 */
public final class AvroValueDecoder implements ValueDecoder {

    private final Schema schema;
    private final boolean confluentFraming;
    private final GenericDatumReader<Object> reader;
    private final Types.StructType valueType;
    private BinaryDecoder decoder;

    public AvroValueDecoder(String schemaText, boolean confluentFraming) {
        try {
            this.schema = new Schema.Parser().parse(schemaText);
        } catch (SchemaParseException e) {
            throw new IllegalArgumentException("floe.tableflow.schema is not a valid Avro schema: " + e.getMessage());
        }
        if (schema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("floe.tableflow.schema must be an Avro record schema, not "
                    + schema.getType().getName());
        }
        this.confluentFraming = confluentFraming;
        this.reader = new GenericDatumReader<>(schema);
        try {
            markInstants(schema, new java.util.HashSet<>());
            this.valueType = AvroSchemaUtil.toIceberg(schema).asStruct();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the Avro schema has no Iceberg equivalent: " + e.getMessage());
        }
    }

    /**
     * Avro's {@code timestamp-millis} and {@code timestamp-micros} are instants (UTC); Iceberg maps them to
     * timestamps with zone only when {@code adjust-to-utc} says so, which Avro schemas rarely carry.
     */
    private static void markInstants(Schema schema, java.util.Set<Schema> seen) {
        if (!seen.add(schema)) {
            return;
        }
        switch (schema.getType()) {
            case RECORD -> schema.getFields().forEach(field -> markInstants(field.schema(), seen));
            case UNION -> schema.getTypes().forEach(branch -> markInstants(branch, seen));
            case ARRAY -> markInstants(schema.getElementType(), seen);
            case MAP -> markInstants(schema.getValueType(), seen);
            case LONG -> {
                if ((schema.getLogicalType() instanceof LogicalTypes.TimestampMillis
                                || schema.getLogicalType() instanceof LogicalTypes.TimestampMicros)
                        && schema.getObjectProp("adjust-to-utc") == null) {
                    schema.addProp("adjust-to-utc", true);
                }
            }
            default -> {}
        }
    }

    @Override
    public Types.StructType valueType() {
        return valueType;
    }

    /**
     * Reads an Avro record of the fields {@code columns} as this schema declares them, in the schema's
     * order, framed as values are: the record key of a tombstone that names its row by the table's key
     * columns (Debezium's key schema is such a record of the primary key's fields).
     */
    @Override
    public ValueDecoder keyDecoder(List<String> columns) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field field : schema.getFields()) {
            if (columns.contains(field.name())) {
                fields.add(new Schema.Field(field, field.schema()));
            }
        }
        Schema key = Schema.createRecord(schema.getName() + "Key", null, schema.getNamespace(), false, fields);
        return new AvroValueDecoder(key.toString(), confluentFraming);
    }

    @Override
    public Map<String, Object> decode(ByteBuffer value) throws RowException {
        if (value == null) {
            return new HashMap<>();
        }
        byte[] bytes = new byte[value.remaining()];
        value.duplicate().get(bytes);
        int start = 0;
        if (confluentFraming) {
            if (bytes.length < 5 || bytes[0] != 0) {
                throw new RowException("value does not start with the Confluent magic byte and schema id");
            }
            start = 5;
        }
        Object record;
        try {
            decoder = DecoderFactory.get().binaryDecoder(bytes, start, bytes.length - start, decoder);
            record = reader.read(null, decoder);
            if (!decoder.isEnd()) {
                throw new RowException("value has bytes left after the Avro record");
            }
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new RowException("value is not Avro binary of the declared schema", e);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> columns = (Map<String, Object>) plain(record, schema);
        return columns;
    }

    /** The Avro datum as plain Java values, logical types applied. */
    private static Object plain(Object datum, Schema schema) throws RowException {
        if (datum == null) {
            return null;
        }
        LogicalType logical = schema.getLogicalType();
        switch (schema.getType()) {
            case RECORD -> {
                GenericRecord record = (GenericRecord) datum;
                Map<String, Object> struct = new HashMap<>();
                for (Schema.Field field : schema.getFields()) {
                    struct.put(field.name(), plain(record.get(field.pos()), field.schema()));
                }
                return struct;
            }
            case UNION -> {
                int branch = GenericData.get().resolveUnion(schema, datum);
                return plain(datum, schema.getTypes().get(branch));
            }
            case ARRAY -> {
                List<Object> list = new ArrayList<>();
                for (Object element : (Iterable<?>) datum) {
                    list.add(plain(element, schema.getElementType()));
                }
                return list;
            }
            case MAP -> {
                Map<String, Object> map = new HashMap<>();
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) datum).entrySet()) {
                    map.put(entry.getKey().toString(), plain(entry.getValue(), schema.getValueType()));
                }
                return map;
            }
            case STRING -> {
                return logical instanceof LogicalTypes.Decimal
                        ? datum.toString()
                        : "uuid".equals(logical == null ? null : logical.getName())
                                ? UUID.fromString(datum.toString())
                                : datum.toString();
            }
            case ENUM -> {
                return datum.toString();
            }
            case BYTES -> {
                ByteBuffer bytes = (ByteBuffer) datum;
                if (logical instanceof LogicalTypes.Decimal decimal) {
                    byte[] unscaled = new byte[bytes.remaining()];
                    bytes.duplicate().get(unscaled);
                    return new BigDecimal(new BigInteger(unscaled), decimal.getScale());
                }
                return RawValueDecoder.copy(bytes);
            }
            case FIXED -> {
                byte[] bytes = ((GenericFixed) datum).bytes().clone();
                if (logical instanceof LogicalTypes.Decimal decimal) {
                    return new BigDecimal(new BigInteger(bytes), decimal.getScale());
                }
                return bytes;
            }
            case INT -> {
                int value = (Integer) datum;
                if (logical instanceof LogicalTypes.Date) {
                    return LocalDate.ofEpochDay(value);
                }
                if (logical instanceof LogicalTypes.TimeMillis) {
                    return LocalTime.ofNanoOfDay(value * 1_000_000L);
                }
                return value;
            }
            case LONG -> {
                long value = (Long) datum;
                if (logical instanceof LogicalTypes.TimeMicros) {
                    return LocalTime.ofNanoOfDay(value * 1_000L);
                }
                if (logical instanceof LogicalTypes.TimestampMillis) {
                    return Instant.ofEpochMilli(value).atOffset(ZoneOffset.UTC);
                }
                if (logical instanceof LogicalTypes.TimestampMicros) {
                    return Instant.EPOCH.plusNanos(value * 1_000L).atOffset(ZoneOffset.UTC);
                }
                if (logical instanceof LogicalTypes.LocalTimestampMillis) {
                    return LocalDateTime.ofInstant(Instant.ofEpochMilli(value), ZoneOffset.UTC);
                }
                if (logical instanceof LogicalTypes.LocalTimestampMicros) {
                    return LocalDateTime.ofInstant(Instant.EPOCH.plusNanos(value * 1_000L), ZoneOffset.UTC);
                }
                return value;
            }
            case FLOAT, DOUBLE, BOOLEAN -> {
                return datum;
            }
            case NULL -> {
                return null;
            }
            default -> throw new RowException("Avro type " + schema.getType() + " is not supported");
        }
    }
}
