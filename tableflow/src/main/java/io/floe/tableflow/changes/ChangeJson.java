package io.floe.tableflow.changes;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import org.apache.iceberg.Schema;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.apache.iceberg.types.Types;

/**
 * Changes as JSON lines, one object a change:
 * {@code {"op","key","before","after","partition","offset","timestamp","snapshot_id","commit_timestamp"}}.
 * The key ({@link ChangeKey}: the record key, or an object of the key columns) and the rows are encoded
 * by {@link RowJson} (bytes in standard base64, timestamps ISO-8601).
 */
final class ChangeJson implements ChangeWriter {

    private static final JsonFactory FACTORY = new JsonFactory()
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM)
            .setRootValueSeparator(null); // each change ends its own line

    private final JsonGenerator json;
    private final Types.StructType rowType;
    private final RowJson rows;
    private final ChangeKey key;

    ChangeJson(OutputStream out, Schema rowSchema) throws IOException {
        this.json = FACTORY.createGenerator(out);
        this.rowType = rowSchema.asStruct();
        this.rows = new RowJson(json);
        this.key = new ChangeKey(rowSchema);
    }

    @Override
    public void accept(Change change) throws IOException {
        json.writeStartObject();
        json.writeStringField("op", change.op().code());
        json.writeFieldName("key");
        key.write(rows, change);
        json.writeFieldName("before");
        rows.row(rowType, change.before());
        json.writeFieldName("after");
        rows.row(rowType, change.after());
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
        ErrorResponse error = ErrorResponse.builder()
                .responseCode(code)
                .withType(type)
                .withMessage(message)
                .build();
        return ErrorResponseParser.toJson(error) + "\n";
    }
}
