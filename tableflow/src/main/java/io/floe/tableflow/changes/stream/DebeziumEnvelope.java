package io.floe.tableflow.changes.stream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.floe.tableflow.changes.Change;
import io.floe.tableflow.changes.Commit;
import io.floe.tableflow.changes.RowJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Types;

/**
 * A change as the value of a Debezium change event, as Debezium's JSON converter writes it with schemas
 * disabled: {@code {"before","after","source","op","ts_ms","transaction"}}. {@code op} is {@code c},
 * {@code u}, {@code d}, or {@code r} for a row of an initial snapshot; {@code ts_ms} is when the agent
 * published it; {@code source} says where the change comes from: Debezium's common fields ({@code
 * version}, {@code connector} "floe", {@code name} the cluster, {@code ts_ms} the table commit that made
 * it visible, {@code snapshot}, {@code db} the namespace, {@code table}) and Floe's ({@code topic},
 * {@code partition}, {@code offset} and {@code record_ts_ms} of the record that made it, {@code
 * snapshot_id} of the commit). Rows are encoded as change queries encode them ({@link RowJson}).
 */
final class DebeziumEnvelope {

    static final String CONNECTOR = "floe";

    private static final JsonFactory FACTORY = new JsonFactory().disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    /** Where the changes come from: the same for every change of one table. */
    record Origin(String version, String clusterName, String namespace, String table, String topic) {}

    private final Origin origin;
    private final Types.StructType rowType;

    DebeziumEnvelope(Origin origin, Types.StructType rowType) {
        this.origin = origin;
        this.rowType = rowType;
    }

    /** The event of a change query's change, published at {@code nowMs}. */
    byte[] change(Change change, long nowMs) {
        return event(
                change.op().code(),
                change.before(),
                change.after(),
                change.commit(),
                false,
                change.partition(),
                change.offset(),
                change.timestampMs(),
                nowMs);
    }

    /** The {@code r} event of a row of an initial snapshot taken at {@code commit}. */
    byte[] read(StructLike row, Commit commit, int partition, long offset, long recordTimestampMs, long nowMs) {
        return event("r", null, row, commit, true, partition, offset, recordTimestampMs, nowMs);
    }

    /**
     * The {@code d} event of a row that the change topic holds (its last {@code after}, {@code
     * beforeJson}) and the table at {@code commit} does not: published with an initial snapshot that
     * follows a gap, so consumers drop what the gap deleted.
     */
    byte[] deleteOf(String beforeJson, Commit commit, int partition, long nowMs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            json.writeStartObject();
            json.writeFieldName("before");
            json.writeRawValue(beforeJson);
            json.writeNullField("after");
            source(json, commit, true, partition, -1, commit.committedAt().toEpochMilli());
            json.writeStringField("op", "d");
            json.writeNumberField("ts_ms", nowMs);
            json.writeNullField("transaction");
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a delete of partition " + partition, e);
        }
        return out.toByteArray();
    }

    private byte[] event(
            String op,
            StructLike before,
            StructLike after,
            Commit commit,
            boolean snapshot,
            int partition,
            long offset,
            long recordTimestampMs,
            long nowMs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            RowJson rows = new RowJson(json);
            json.writeStartObject();
            json.writeFieldName("before");
            rows.row(rowType, before);
            json.writeFieldName("after");
            rows.row(rowType, after);
            source(json, commit, snapshot, partition, offset, recordTimestampMs);
            json.writeStringField("op", op);
            json.writeNumberField("ts_ms", nowMs);
            json.writeNullField("transaction");
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode the change at " + partition + ":" + offset, e);
        }
        return out.toByteArray();
    }

    private void source(
            JsonGenerator json, Commit commit, boolean snapshot, int partition, long offset, long recordTimestampMs)
            throws IOException {
        json.writeObjectFieldStart("source");
        json.writeStringField("version", origin.version());
        json.writeStringField("connector", CONNECTOR);
        json.writeStringField("name", origin.clusterName());
        // A row whose commit was expired (an append table's oldest rows) has only its record's time.
        json.writeNumberField(
                "ts_ms",
                commit == null ? recordTimestampMs : commit.committedAt().toEpochMilli());
        json.writeStringField("snapshot", Boolean.toString(snapshot));
        json.writeStringField("db", origin.namespace());
        json.writeStringField("table", origin.table());
        json.writeStringField("topic", origin.topic());
        json.writeNumberField("partition", partition);
        if (offset < 0) { // a delete that a gap hid: no record of the topic made it
            json.writeNullField("offset");
            json.writeNullField("record_ts_ms");
        } else {
            json.writeNumberField("offset", offset);
            json.writeNumberField("record_ts_ms", recordTimestampMs);
        }
        if (commit == null) {
            json.writeNullField("snapshot_id");
        } else {
            json.writeNumberField("snapshot_id", commit.snapshotId());
        }
        json.writeEndObject();
    }
}
