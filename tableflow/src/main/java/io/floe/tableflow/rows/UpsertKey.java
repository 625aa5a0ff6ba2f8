package io.floe.tableflow.rows;

import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * What identifies a row of an upsert table, so which row a record replaces: the values of the table's
 * identifier fields (its declared key columns, {@code floe.tableflow.upsert.key.columns}), or, for a
 * table without identifier fields, the Kafka record key ({@code kafka_key}). Every part of Tableflow
 * that finds rows by key takes the key from here: a round ({@link UpsertRecords}), the key index and
 * lookups, change queries and the change topic.
 *
 * <p>A key is one byte string: for one column its value's Iceberg single-value serialization (a
 * record key is its bytes as they are, a long its 8 little-endian bytes, a string its UTF-8), for
 * several each column's serialization after its length (4 bytes, big-endian), in the table's column
 * order. Values are those of the table's current column types (a promoted column gives the key of its
 * new type, for new rows and old ones read alike).
 *
 * @param columns the key's columns, in the table's column order
 */
public record UpsertKey(List<Types.NestedField> columns) {

    public UpsertKey {
        columns = List.copyOf(columns);
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a key needs a column");
        }
    }

    /** The key of {@code tableSchema}'s rows: its identifier fields, else the record key. */
    public static UpsertKey of(Schema tableSchema) {
        Set<Integer> ids = tableSchema.identifierFieldIds();
        if (ids.isEmpty()) {
            return new UpsertKey(List.of(tableSchema.findField(Rows.KEY)));
        }
        return new UpsertKey(tableSchema.columns().stream()
                .filter(column -> ids.contains(column.fieldId()))
                .toList());
    }

    /** Whether the key is the Kafka record key rather than columns of the value. */
    public boolean isRecordKey() {
        return columns.size() == 1 && columns.get(0).name().equals(Rows.KEY);
    }

    /** The names of the key's columns. */
    public List<String> names() {
        return columns.stream().map(Types.NestedField::name).toList();
    }

    /** The key's columns as a struct (a row's key as a record of them). */
    public Types.StructType type() {
        return Types.StructType.of(columns);
    }

    /** The key of {@code row} (a row of the table, or any record with the key's columns); null when a column is null. */
    public ByteBuffer of(Record row) {
        if (columns.size() == 1) {
            return serialized(columns.get(0), row);
        }
        List<ByteBuffer> parts = new ArrayList<>(columns.size());
        int length = 0;
        for (Types.NestedField column : columns) {
            ByteBuffer part = serialized(column, row);
            if (part == null) {
                return null;
            }
            parts.add(part);
            length += 4 + part.remaining();
        }
        ByteBuffer key = ByteBuffer.allocate(length);
        for (ByteBuffer part : parts) {
            key.putInt(part.remaining()).put(part.duplicate());
        }
        return key.flip();
    }

    /** The key columns {@code row} lacks (null values), by name. */
    public List<String> missing(Record row) {
        return columns.stream()
                .filter(column -> row.getField(column.name()) == null)
                .map(Types.NestedField::name)
                .toList();
    }

    /**
     * The values of a {@link #of key}, one a column, in Iceberg's internal representation (what column
     * bounds and expressions compare: a timestamp in microseconds, a date in days, a string a
     * CharSequence, binary a ByteBuffer).
     */
    public Object[] values(ByteBuffer key) {
        Object[] values = new Object[columns.size()];
        if (values.length == 1) {
            values[0] = Conversions.fromByteBuffer(columns.get(0).type(), key.duplicate());
            return values;
        }
        ByteBuffer rest = key.duplicate();
        for (int i = 0; i < values.length; i++) {
            int length = rest.getInt();
            ByteBuffer part = rest.slice();
            part.limit(length);
            rest.position(rest.position() + length);
            values[i] = Conversions.fromByteBuffer(columns.get(i).type(), part);
        }
        return values;
    }

    /**
     * A filter that keeps at least the rows of {@code keys}: each key column among the keys' values. For
     * several columns it keeps combinations of the keys' values too; callers match rows by their key.
     */
    public Expression rowsOf(Collection<ByteBuffer> keys) {
        List<Set<Object>> perColumn = new ArrayList<>();
        columns.forEach(column -> perColumn.add(new LinkedHashSet<>()));
        for (ByteBuffer key : keys) {
            Object[] values = values(key);
            for (int i = 0; i < values.length; i++) {
                perColumn.get(i).add(values[i]);
            }
        }
        Expression filter = Expressions.alwaysTrue();
        for (int i = 0; i < columns.size(); i++) {
            filter = Expressions.and(
                    filter,
                    Expressions.in(columns.get(i).name(), perColumn.get(i).toArray()));
        }
        return filter;
    }

    /** The key's columns of {@code row} as a record of {@link #type}. */
    public GenericRecord columnsOf(Record row) {
        GenericRecord key = GenericRecord.create(type());
        for (Types.NestedField column : columns) {
            key.setField(column.name(), row.getField(column.name()));
        }
        return key;
    }

    private static ByteBuffer serialized(Types.NestedField column, Record row) {
        Object value = row.getField(column.name());
        if (value == null) {
            return null;
        }
        return Conversions.toByteBuffer(column.type(), internal(column.type(), value));
    }

    /** A generic record's value of {@code type} in Iceberg's internal representation. */
    private static Object internal(org.apache.iceberg.types.Type type, Object value) {
        return switch (type.typeId()) {
            case DATE -> DateTimeUtil.daysFromDate((LocalDate) value);
            case TIME -> DateTimeUtil.microsFromTime((LocalTime) value);
            case TIMESTAMP ->
                value instanceof OffsetDateTime at
                        ? DateTimeUtil.microsFromTimestamptz(at)
                        : DateTimeUtil.microsFromTimestamp((LocalDateTime) value);
            case TIMESTAMP_NANO ->
                value instanceof OffsetDateTime at
                        ? DateTimeUtil.nanosFromTimestamptz(at)
                        : DateTimeUtil.nanosFromTimestamp((LocalDateTime) value);
            case FIXED -> value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
            default -> value;
        };
    }
}
