package io.floe.tableflow.rows;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The key of an upsert table's rows: the record key, or the encoding of its key columns' values. */
class UpsertKeyTest {

    private static final Types.StructType VALUE = Types.StructType.of(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "balance", Types.LongType.get()),
            Types.NestedField.required(4, "day", Types.DateType.get()),
            Types.NestedField.required(5, "at", Types.TimestampType.withZone()),
            Types.NestedField.required(6, "uuid", Types.UUIDType.get()));

    @Test
    void aTableWithoutKeyColumnsIsKeyedByTheRecordKeyAsItIs() {
        Schema schema = Rows.tableSchema(VALUE);
        UpsertKey key = UpsertKey.of(schema);
        assertThat(key.isRecordKey()).isTrue();
        assertThat(key.names()).containsExactly(Rows.KEY);
        GenericRecord row = GenericRecord.create(schema);
        row.setField(Rows.KEY, bytes("key-1"));
        assertThat(key.of(row)).isEqualTo(bytes("key-1"));
        assertThat(key.values(bytes("key-1"))).containsExactly(bytes("key-1"));
    }

    @Test
    void keyColumnsAreRequiredIdentifierFieldsInTheTablesColumnOrder() {
        Schema schema = Rows.tableSchema(VALUE, List.of("region", "id"));
        assertThat(schema.identifierFieldNames()).containsExactlyInAnyOrder("id", "region");
        assertThat(schema.findField("id").isRequired()).isTrue();
        assertThat(schema.findField("balance").isOptional()).isTrue();
        UpsertKey key = UpsertKey.of(schema);
        assertThat(key.isRecordKey()).isFalse();
        assertThat(key.names()).containsExactly("id", "region");
    }

    @Test
    void oneColumnsKeyIsItsValuesIcebergSerializationAndTheRecordKeyDoesNotMatter() {
        Schema schema = Rows.tableSchema(VALUE, List.of("id"));
        UpsertKey key = UpsertKey.of(schema);
        GenericRecord row = row(schema, 42L, "eu");
        row.setField(Rows.KEY, bytes("anything"));
        GenericRecord other = row(schema, 42L, "us");
        assertThat(key.of(row))
                .isEqualTo(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 42L))
                .isEqualTo(key.of(other));
        assertThat(key.values(key.of(row))).containsExactly(42L);
    }

    @Test
    void severalColumnsAreEachPrefixedByTheirLengthSoNoTwoKeysRunTogether() {
        Schema schema = Rows.tableSchema(
                Types.StructType.of(
                        Types.NestedField.required(1, "a", Types.StringType.get()),
                        Types.NestedField.required(2, "b", Types.StringType.get())),
                List.of("a", "b"));
        UpsertKey key = UpsertKey.of(schema);
        GenericRecord first = GenericRecord.create(schema);
        first.setField("a", "ab");
        first.setField("b", "c");
        GenericRecord second = GenericRecord.create(schema);
        second.setField("a", "a");
        second.setField("b", "bc");
        assertThat(key.of(first)).isNotEqualTo(key.of(second));
        assertThat(key.values(key.of(first))).extracting(Object::toString).containsExactly("ab", "c");
        GenericRecord missing = GenericRecord.create(schema);
        missing.setField("a", "x");
        assertThat(key.of(missing)).isNull();
        assertThat(key.missing(missing)).containsExactly("b");
    }

    @Test
    void datesTimestampsAndUuidsAreKeyedByTheirInternalValues() {
        Schema schema = Rows.tableSchema(VALUE, List.of("day", "at", "uuid"));
        UpsertKey key = UpsertKey.of(schema);
        UUID uuid = new UUID(7, 9);
        GenericRecord row = GenericRecord.create(schema);
        row.setField("day", LocalDate.of(1970, 1, 3));
        row.setField("at", OffsetDateTime.of(1970, 1, 1, 0, 0, 1, 0, ZoneOffset.UTC));
        row.setField("uuid", uuid);
        GenericRecord sameInstant = GenericRecord.create(schema);
        sameInstant.setField("day", LocalDate.of(1970, 1, 3));
        sameInstant.setField("at", OffsetDateTime.of(1970, 1, 1, 2, 0, 1, 0, ZoneOffset.ofHours(2)));
        sameInstant.setField("uuid", uuid);
        assertThat(key.values(key.of(row))).containsExactly(2, 1_000_000L, uuid);
        assertThat(key.of(sameInstant)).as("one instant in two zones").isEqualTo(key.of(row));
    }

    @Test
    void aFilterOfKeysNamesEachColumnsValues() {
        Schema schema = Rows.tableSchema(VALUE, List.of("id", "region"));
        UpsertKey key = UpsertKey.of(schema);
        String filter = key.rowsOf(List.of(key.of(row(schema, 1L, "eu")), key.of(row(schema, 2L, "eu"))))
                .toString();
        assertThat(filter).contains("id", "1", "2", "region", "eu");
    }

    private static GenericRecord row(Schema schema, long id, String region) {
        GenericRecord row = GenericRecord.create(schema);
        row.setField("id", id);
        row.setField("region", region);
        return row;
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }
}
