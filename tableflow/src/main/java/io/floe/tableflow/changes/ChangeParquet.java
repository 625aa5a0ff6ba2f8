package io.floe.tableflow.changes;

import io.floe.tableflow.io.CountingPositionStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Changes as one Parquet file written straight to a stream (Iceberg's generic Parquet writer): the
 * columns of the JSON lines, with {@code before} and {@code after} structs of the table's columns, the
 * key as binary (a struct of the key columns for a table keyed by columns) and the timestamps as
 * {@code timestamptz}. A row group is held in memory until it is
 * full (8 MiB) or the answer ends.
 */
final class ChangeParquet implements ChangeWriter {

    private static final String ROW_GROUP_BYTES = Integer.toString(8 << 20);

    private final Schema schema;
    private final ChangeKey key;
    private final FileAppender<Record> appender;

    ChangeParquet(OutputStream out, Schema rowSchema) throws IOException {
        this.schema = schema(rowSchema);
        this.key = new ChangeKey(rowSchema);
        this.appender = Parquet.write(new StreamFile(out))
                .schema(schema)
                .createWriterFunc(GenericParquetWriter::create)
                .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, ROW_GROUP_BYTES)
                .build();
    }

    /** The file's schema: the change columns around two structs of the table's columns. */
    static Schema schema(Schema rowSchema) {
        Types.StructType row = rowSchema.asStruct();
        Types.StructType change = Types.StructType.of(
                Types.NestedField.required(0, "op", Types.StringType.get(), "c, u or d"),
                Types.NestedField.optional(
                        0, "key", new ChangeKey(rowSchema).type(), "Kafka record key, or the key columns' values"),
                Types.NestedField.optional(0, "before", row, "the row before (null for an insert)"),
                Types.NestedField.optional(0, "after", row, "the row after (null for a delete)"),
                Types.NestedField.required(0, "partition", Types.IntegerType.get()),
                Types.NestedField.required(0, "offset", Types.LongType.get()),
                Types.NestedField.required(0, "timestamp", Types.TimestampType.withZone(), "record timestamp"),
                Types.NestedField.optional(0, "snapshot_id", Types.LongType.get(), "the commit's snapshot"),
                Types.NestedField.optional(0, "commit_timestamp", Types.TimestampType.withZone()));
        AtomicInteger ids = new AtomicInteger();
        Type fresh = TypeUtil.assignFreshIds(change, ids::incrementAndGet);
        return new Schema(fresh.asStructType().fields());
    }

    @Override
    public void accept(Change change) {
        GenericRecord record = GenericRecord.create(schema);
        record.setField("op", change.op().code());
        record.setField("key", key.value(change));
        record.setField("before", change.before());
        record.setField("after", change.after());
        record.setField("partition", change.partition());
        record.setField("offset", change.offset());
        record.setField("timestamp", utc(change.timestampMs()));
        if (change.commit() != null) {
            record.setField("snapshot_id", change.commit().snapshotId());
            record.setField(
                    "commit_timestamp", utc(change.commit().committedAt().toEpochMilli()));
        }
        appender.add(record);
    }

    @Override
    public void finish() throws IOException {
        appender.close();
    }

    @Override
    public void fail(String message) {
        // A Parquet file cut short has no footer: no reader takes it for whole.
    }

    private static OffsetDateTime utc(long millis) {
        return Instant.ofEpochMilli(millis).atOffset(ZoneOffset.UTC);
    }

    /** An output "file" that is the answer's stream, written once from its start. */
    private static final class StreamFile implements OutputFile {
        private final OutputStream out;

        StreamFile(OutputStream out) {
            this.out = out;
        }

        @Override
        public PositionOutputStream create() {
            return new CountingPositionStream(out) {
                @Override
                public void close() throws IOException {
                    flush(); // the stream belongs to the answer, which closes it
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return create();
        }

        @Override
        public String location() {
            return "changes.parquet";
        }

        @Override
        public InputFile toInputFile() {
            throw new UnsupportedOperationException("an answer stream cannot be read back");
        }
    }
}
