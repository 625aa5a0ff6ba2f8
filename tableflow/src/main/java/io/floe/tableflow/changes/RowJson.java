package io.floe.tableflow.changes;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;

/**
 * A table's rows as JSON, the one encoding of change queries and the change topic: bytes (the key,
 * binary and fixed columns, header values) standard base64, as Kafka Connect's JSON converter and
 * Debezium write them; timestamps ISO-8601 (UTC for {@code timestamptz}), decimals exact numbers,
 * non-finite floats strings, maps with string keys objects and other maps lists of {@code {"key","value"}}.
 */
public final class RowJson {

    private final JsonGenerator json;

    public RowJson(JsonGenerator json) {
        this.json = json;
    }

    /** Writes {@code row} (null: JSON null) as an object of {@code type}'s fields. */
    public void row(Types.StructType type, StructLike row) throws IOException {
        value(type, row);
    }

    /** Writes {@code buffer}'s remaining bytes as base64 (null: JSON null), leaving its position alone. */
    public void bytes(ByteBuffer buffer) throws IOException {
        if (buffer == null) {
            json.writeNull();
            return;
        }
        json.writeBinary(ByteBuffers.toByteArray(buffer));
    }

    private void value(Type type, Object value) throws IOException {
        if (value == null) {
            json.writeNull();
            return;
        }
        switch (type.typeId()) {
            case BOOLEAN -> json.writeBoolean((Boolean) value);
            case INTEGER -> json.writeNumber((Integer) value);
            case LONG -> json.writeNumber((Long) value);
            case FLOAT -> floating((Float) value);
            case DOUBLE -> floating((Double) value);
            case DECIMAL -> json.writeNumber((BigDecimal) value);
            case TIMESTAMP, TIMESTAMP_NANO ->
                json.writeString(
                        value instanceof OffsetDateTime at ? at.toInstant().toString() : value.toString());
            case FIXED, BINARY -> bytes(value instanceof byte[] array ? ByteBuffer.wrap(array) : (ByteBuffer) value);
            case STRUCT -> struct(type.asStructType(), (StructLike) value);
            case LIST -> list(type.asListType(), (List<?>) value);
            case MAP -> map(type.asMapType(), (Map<?, ?>) value);
            default -> json.writeString(value.toString()); // string, uuid, date, time, and what else comes
        }
    }

    private void struct(Types.StructType type, StructLike value) throws IOException {
        json.writeStartObject();
        List<Types.NestedField> fields = type.fields();
        for (int i = 0; i < fields.size(); i++) {
            json.writeFieldName(fields.get(i).name());
            Object field = value instanceof Record record
                    ? record.getField(fields.get(i).name())
                    : value.get(i, Object.class);
            value(fields.get(i).type(), field);
        }
        json.writeEndObject();
    }

    private void list(Types.ListType type, List<?> values) throws IOException {
        json.writeStartArray();
        for (Object element : values) {
            value(type.elementType(), element);
        }
        json.writeEndArray();
    }

    private void map(Types.MapType type, Map<?, ?> values) throws IOException {
        if (type.keyType().typeId() == Type.TypeID.STRING) {
            json.writeStartObject();
            for (Map.Entry<?, ?> entry : values.entrySet()) {
                json.writeFieldName(entry.getKey().toString());
                value(type.valueType(), entry.getValue());
            }
            json.writeEndObject();
            return;
        }
        json.writeStartArray();
        for (Map.Entry<?, ?> entry : values.entrySet()) {
            json.writeStartObject();
            json.writeFieldName("key");
            value(type.keyType(), entry.getKey());
            json.writeFieldName("value");
            value(type.valueType(), entry.getValue());
            json.writeEndObject();
        }
        json.writeEndArray();
    }

    private void floating(double value) throws IOException {
        if (Double.isFinite(value)) {
            json.writeNumber(value);
        } else {
            json.writeString(Double.toString(value));
        }
    }

    private void floating(float value) throws IOException {
        if (Float.isFinite(value)) {
            json.writeNumber(value);
        } else {
            json.writeString(Float.toString(value));
        }
    }
}
