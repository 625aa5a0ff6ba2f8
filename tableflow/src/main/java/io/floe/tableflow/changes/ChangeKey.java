package io.floe.tableflow.changes;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.UpsertKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;

/**
 * How a change's key is shown: for a table keyed by the record key, its bytes; for one keyed by columns,
 * an object of the key columns' values taken from the change's row, as Debezium keys its events by a
 * table's primary key ({@code {"id": 5}}). A table's {@link UpsertKey} decides which.
 */
public final class ChangeKey {

    private static final JsonFactory FACTORY = new JsonFactory();

    /** The key columns; null when the key is the record key. */
    private final UpsertKey columns;

    /** The keys of changes to rows of {@code rowSchema} (a table's schema). */
    public ChangeKey(Schema rowSchema) {
        this.columns = rowSchema.identifierFieldIds().isEmpty() ? null : UpsertKey.of(rowSchema);
    }

    /** Whether the key is the record key's bytes. */
    public boolean isRecordKey() {
        return columns == null;
    }

    /** The type of the key in a Parquet answer: binary, or a struct of the key columns. */
    Type type() {
        return isRecordKey() ? Types.BinaryType.get() : columns.type();
    }

    /** Writes {@code change}'s key: the record key in base64, or an object of the key columns. */
    void write(RowJson rows, Change change) throws IOException {
        if (isRecordKey()) {
            rows.bytes(change.key());
        } else {
            rows.row(columns.type(), rowOf(change));
        }
    }

    /** {@code change}'s key as a Parquet answer holds it: bytes, or a record of the key columns. */
    Object value(Change change) {
        return isRecordKey() ? change.key() : columns.columnsOf(rowOf(change));
    }

    /**
     * The Kafka record key of {@code row}'s changes: the record key's bytes (null for none), or the JSON
     * object of the key columns, encoded as rows are ({@link RowJson}).
     */
    public byte[] kafkaKey(Record row) {
        if (isRecordKey()) {
            ByteBuffer recordKey = (ByteBuffer) row.getField(Rows.KEY);
            return ByteBuffers.toByteArray(recordKey);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            new RowJson(json).row(columns.type(), row);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode the key of a row at " + row.getField(Rows.OFFSET), e);
        }
        return out.toByteArray();
    }

    /** The Kafka record key of {@code change}: that of its row. */
    public byte[] kafkaKey(Change change) {
        return kafkaKey(rowOf(change));
    }

    /** The row a change has: after it, or before a delete. */
    private static Record rowOf(Change change) {
        return change.after() != null ? change.after() : change.before();
    }
}
