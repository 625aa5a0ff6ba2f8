package io.floe.tableflow.rows;

import io.floe.core.record.StoredRecord;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;

/**
 * What a record of the log does to an upsert table: sets its key's row, or, a tombstone (null value),
 * deletes it. The one rule for the table job's rounds and for the change queries' replay of them.
 *
 * <ul>
 *   <li>Keyed by the record key: a record without a key is a dead letter.
 *   <li>Keyed by columns: the key is the row's values of them; the record key does not matter. A
 *       tombstone has no row, so its record key names the row it deletes: it must decode, in the
 *       value's format, as an object (JSON) or record (Avro) of the key columns, as Debezium keys its
 *       events by the primary key; a tombstone whose key does not is a dead letter.
 * </ul>
 *
 * Not thread-safe (the decoders are not).
 */
public final class UpsertRecords {

    /** A record's change: the row's key, and the new row or null when the key's row is deleted. */
    public record Change(ByteBuffer key, GenericRecord row) {}

    private final Schema schema;
    private final UpsertKey key;
    private final ValueDecoder values;
    /** Made on the first tombstone of a table keyed by columns. */
    private ValueDecoder keys;

    /** Records of the table with {@code tableSchema}, values read by {@code values}. */
    public UpsertRecords(Schema tableSchema, ValueDecoder values) {
        this.schema = tableSchema;
        this.key = UpsertKey.of(tableSchema);
        this.values = values;
    }

    public UpsertKey key() {
        return key;
    }

    /** The change {@code record} of {@code partition} makes; {@link RowException} when it is a dead letter. */
    public Change change(int partition, StoredRecord record) throws RowException {
        if (key.isRecordKey() && !record.hasKey()) {
            throw new RowException("an upsert table keeps the newest row per record key, and this record has no key");
        }
        if (!record.hasValue()) {
            return new Change(key.isRecordKey() ? RawValueDecoder.copy(record.key()) : tombstoneKey(record), null);
        }
        GenericRecord row = Rows.row(schema, partition, record, values.decode(record.value()));
        ByteBuffer rowKey = key.of(row);
        if (rowKey == null) {
            throw new RowException("the value has no " + key.missing(row) + " (the key columns " + key.names()
                    + " of this upsert table)");
        }
        return new Change(rowKey, row);
    }

    /**
     * The key {@code record} changes, or null for a dead letter. Cheaper than {@link #change} for a table
     * keyed by the record key: its value is not decoded (a record whose value does not fit counts).
     */
    public ByteBuffer keyOf(int partition, StoredRecord record) {
        if (key.isRecordKey()) {
            return record.hasKey() ? RawValueDecoder.copy(record.key()) : null;
        }
        try {
            return change(partition, record).key();
        } catch (RowException deadLetter) {
            return null;
        }
    }

    private ByteBuffer tombstoneKey(StoredRecord record) throws RowException {
        String expected = "a tombstone (null value) of this upsert table deletes the row its record key names,"
                + " with the key columns " + key.names() + " in the value's format";
        if (!record.hasKey()) {
            throw new RowException(expected + ", and this record has no key");
        }
        if (keys == null) {
            keys = values.keyDecoder(key.names());
        }
        GenericRecord fields = GenericRecord.create(key.type());
        try {
            IcebergValues.fill(fields, key.type(), keys.decode(record.key()));
        } catch (RowException e) {
            throw new RowException(expected + "; its key does not", e);
        }
        List<String> missing = key.missing(fields);
        if (!missing.isEmpty()) {
            throw new RowException(expected + "; its key has no " + missing);
        }
        return key.of(fields);
    }
}
