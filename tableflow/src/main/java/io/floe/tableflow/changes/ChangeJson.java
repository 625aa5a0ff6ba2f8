package io.floe.tableflow.changes;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Changes as JSON lines, one object a change:
 * {@code {"op","key","before","after","partition","offset","timestamp","snapshot_id","commit_timestamp"}}.
 * Bytes (the key, binary and fixed columns, header values) are standard base64, as Kafka Connect's JSON
 * converter and Debezium write them; timestamps are ISO-8601 (UTC for {@code timestamptz}), decimals exact
 * numbers, non-finite floats strings, maps with string keys objects and other maps lists of
 * {@code {"key","value"}}.
 */
final class ChangeJson implements ChangeWriter {

    private static final JsonFactory FACTORY = new JsonFactory()
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM)
            .setRootValueSeparator(null); // each change ends its own line

    private final JsonGenerator json;
    private final Types.StructType rowType;

    ChangeJson(OutputStream out, Schema rowSchema) throws IOException {
        this.json = FACTORY.createGenerator(out);
        this.rowType = rowSchema.asStruct();
    }

    @Override
    public void accept(Change change) throws IOException {
        json.writeStartObject();
        json.writeStringField("op", change.op().code());
        json.writeFieldName("key");
        bytes(change.key());
        json.writeFieldName("before");
        value(rowType, change.before());
        json.writeFieldName("after");
        value(rowType, change.after());
        json.writeNumberField("partition", change.partition());
        json.writeNumberField("offset", change.offset());
        json.writeStringField(
                "timestamp", Instant.ofEpochMilli(change.timestampMs()).toString());
        if (change.commit() == null) {
            json.writeNullField("snapshot_id");
            json.writeNullField("commit_timestamp");
        } else {
            json.writeNumberField("snapshot_id", change.commit().snapshotId());
            json.writeStringField(
                    "commit_timestamp", change.commit().committedAt().toString());
        }
        json.writeEndObject();
        json.writeRaw('\n');
    }

    @Override
    public void finish() throws IOException {
        json.flush();
    }

    @Override
    public void fail(String message) throws IOException {
        json.writeRaw(error(500, "ChangeQueryFailed", message));
        json.flush();
    }

    /** {@code {"error": {"message", "type", "code"}}} and a newline, the shape of the Iceberg REST catalog's errors. */
    static String error(int code, String type, String message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            json.writeStartObject();
            json.writeObjectFieldStart("error");
            json.writeStringField("message", message);
            json.writeStringField("type", type);
            json.writeNumberField("code", code);
            json.writeEndObject();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8) + "\n";
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

    private void bytes(ByteBuffer buffer) throws IOException {
        if (buffer == null) {
            json.writeNull();
            return;
        }
        ByteBuffer view = buffer.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        json.writeBinary(bytes);
    }
}
