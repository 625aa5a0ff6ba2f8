package io.floe.tableflow.rows;

import io.floe.core.record.StoredRecord;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.header.Header;

/**
 * The table's row layout: Kafka's metadata columns first ({@code kafka_partition}, {@code kafka_offset},
 * {@code kafka_timestamp}, {@code kafka_key}, {@code kafka_headers}), then the value columns. Dead-letter
 * tables keep the metadata columns, the raw value and the reason it did not fit.
 *
 * <p>No column name starts with an underscore: engines take those for their own hidden columns, and
 * Spark's Iceberg runtime refuses to read a table with a column named like one of Iceberg's metadata
 * columns ({@code _partition}, {@code _file}, ...). Tables written with the older underscore names are
 * renamed in place ({@code LegacyColumns} in the table package).
 */
public final class Rows {

    public static final String PARTITION = "kafka_partition";
    public static final String OFFSET = "kafka_offset";
    public static final String TIMESTAMP = "kafka_timestamp";
    public static final String KEY = "kafka_key";
    public static final String HEADERS = "kafka_headers";
    public static final String DEAD_VALUE = "kafka_value";
    public static final String DEAD_REASON = "floe_error";

    private Rows() {}

    /**
     * The table schema for records whose values decode to {@code valueType}; {@link IllegalArgumentException}
     * when a top-level value field takes the name of a metadata column or a name an engine reserves
     * ({@link ReservedNames}), so the declared schema is refused when it is set.
     */
    public static Schema tableSchema(Types.StructType valueType) {
        return tableSchema(valueType, List.of());
    }

    /**
     * The table schema of an upsert table keyed by the value fields {@code keyColumns} (none: by the
     * record key): they are required columns and the schema's identifier fields, the rest as {@link
     * #tableSchema(Types.StructType)} makes them. {@link IllegalArgumentException} when a key column
     * does not qualify ({@link KeyColumns}).
     */
    public static Schema tableSchema(Types.StructType valueType, List<String> keyColumns) {
        KeyColumns.check(valueType, keyColumns);
        List<Types.NestedField> fields = new ArrayList<>(metadataColumns());
        for (Types.NestedField field : valueType.fields()) {
            if (isMetadataColumn(field.name())) {
                throw new IllegalArgumentException("value field " + field.name() + " of the declared schema collides"
                        + " with the Kafka metadata column of that name (the names Tableflow adds: "
                        + List.of(PARTITION, OFFSET, TIMESTAMP, KEY, HEADERS, DEAD_VALUE, DEAD_REASON)
                        + "); rename the field");
            }
            ReservedNames.reservedBy(field.name()).ifPresent(reserved -> {
                throw new IllegalArgumentException("value field " + field.name() + " of the declared schema is a"
                        + " name " + reserved + "; rename the field");
            });
            fields.add(
                    keyColumns.contains(field.name())
                            ? Types.NestedField.required(field.fieldId(), field.name(), field.type(), field.doc())
                            : Types.NestedField.optional(field.fieldId(), field.name(), field.type(), field.doc()));
        }
        Schema schema = freshIds(fields);
        if (keyColumns.isEmpty()) {
            return schema;
        }
        Set<Integer> identifiers = new HashSet<>();
        keyColumns.forEach(name -> identifiers.add(schema.findField(name).fieldId()));
        return new Schema(schema.columns(), identifiers);
    }

    /** The schema of the dead-letter table. */
    public static Schema deadLetterSchema() {
        List<Types.NestedField> fields = new ArrayList<>(metadataColumns());
        fields.add(Types.NestedField.optional(0, DEAD_VALUE, Types.BinaryType.get()));
        fields.add(Types.NestedField.required(0, DEAD_REASON, Types.StringType.get()));
        return freshIds(fields);
    }

    /** {@code record} of {@code partition} as a row of {@code schema}, its value columns from {@code values}. */
    public static GenericRecord row(Schema schema, int partition, StoredRecord record, Map<String, Object> values)
            throws RowException {
        GenericRecord row = metadataRow(schema, partition, record);
        IcebergValues.fill(row, schema.asStruct(), values);
        return row;
    }

    /** {@code record} of {@code partition} as a row of the dead-letter table, with the reason it did not fit. */
    public static GenericRecord deadLetter(Schema schema, int partition, StoredRecord record, String reason) {
        GenericRecord row = metadataRow(schema, partition, record);
        row.setField(DEAD_VALUE, record.hasValue() ? RawValueDecoder.copy(record.value()) : null);
        row.setField(DEAD_REASON, reason);
        return row;
    }

    private static GenericRecord metadataRow(Schema schema, int partition, StoredRecord record) {
        GenericRecord row = GenericRecord.create(schema);
        row.setField(PARTITION, partition);
        row.setField(OFFSET, record.offset());
        row.setField(TIMESTAMP, timestamp(record.timestamp()));
        row.setField(KEY, record.hasKey() ? RawValueDecoder.copy(record.key()) : null);
        Header[] headers = record.headers();
        if (headers.length > 0) {
            Types.StructType headerType =
                    schema.findField(HEADERS).type().asListType().elementType().asStructType();
            List<GenericRecord> list = new ArrayList<>(headers.length);
            for (Header header : headers) {
                GenericRecord item = GenericRecord.create(headerType);
                item.setField("key", header.key());
                item.setField("value", header.value() == null ? null : ByteBuffer.wrap(header.value()));
                list.add(item);
            }
            row.setField(HEADERS, list);
        }
        return row;
    }

    private static OffsetDateTime timestamp(long millis) {
        return Instant.ofEpochMilli(Math.max(0, millis)).atOffset(ZoneOffset.UTC);
    }

    private static boolean isMetadataColumn(String name) {
        return List.of(PARTITION, OFFSET, TIMESTAMP, KEY, HEADERS, DEAD_VALUE, DEAD_REASON).stream()
                .anyMatch(name::equalsIgnoreCase);
    }

    private static List<Types.NestedField> metadataColumns() {
        return List.of(
                Types.NestedField.required(0, PARTITION, Types.IntegerType.get(), "Kafka partition"),
                Types.NestedField.required(0, OFFSET, Types.LongType.get(), "Kafka offset"),
                Types.NestedField.required(0, TIMESTAMP, Types.TimestampType.withZone(), "Kafka record timestamp"),
                Types.NestedField.optional(0, KEY, Types.BinaryType.get(), "Kafka record key"),
                Types.NestedField.optional(
                        0,
                        HEADERS,
                        Types.ListType.ofRequired(
                                0,
                                Types.StructType.of(
                                        Types.NestedField.required(0, "key", Types.StringType.get()),
                                        Types.NestedField.optional(0, "value", Types.BinaryType.get()))),
                        "Kafka record headers"));
    }

    private static Schema freshIds(List<Types.NestedField> fields) {
        AtomicInteger ids = new AtomicInteger();
        Type type = TypeUtil.assignFreshIds(Types.StructType.of(fields), ids::incrementAndGet);
        return new Schema(type.asStructType().fields());
    }
}
