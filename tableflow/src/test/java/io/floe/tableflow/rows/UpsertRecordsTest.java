package io.floe.tableflow.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.record.StoredBatch;
import io.floe.core.record.StoredRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * What a record does to an upsert table: keyed by columns, a record's key is its value's columns whatever
 * its record key, and a tombstone deletes the row its record key names with the same columns (a JSON
 * object or an Avro record of them); anything else is a dead letter with the reason.
 */
class UpsertRecordsTest {

    private static final String JSON_SCHEMA = """
            {"type": "object", "required": ["region", "id", "balance"], "properties": {
              "region": {"type": "string"}, "id": {"type": "integer"}, "balance": {"type": "integer"}}}""";
    private static final String AVRO_SCHEMA = """
            {"type": "record", "name": "Account", "fields": [
              {"name": "region", "type": "string"}, {"name": "id", "type": "long"},
              {"name": "balance", "type": "long"}]}""";

    @Test
    void aRowsKeyIsItsKeyColumnsWhateverItsRecordKey() throws Exception {
        UpsertRecords records = json(List.of("region", "id"));
        UpsertRecords.Change first = records.change(0, record("one", value("eu", 7, 10)));
        UpsertRecords.Change second = records.change(1, record((String) null, value("eu", 7, 20)));
        UpsertRecords.Change third = records.change(0, record("one", value("us", 7, 30)));
        assertThat(first.key()).isEqualTo(second.key()).isNotEqualTo(third.key());
        assertThat(second.row().getField("balance")).isEqualTo(20L);
        assertThat(records.keyOf(1, record((String) null, value("eu", 7, 99)))).isEqualTo(first.key());
    }

    @Test
    void aJsonTombstoneDeletesTheRowItsRecordKeyNames() throws Exception {
        UpsertRecords records = json(List.of("id", "region"));
        ByteBuffer row = records.change(0, record("x", value("eu", 7, 10))).key();
        UpsertRecords.Change tombstone =
                records.change(0, record("{\"region\": \"eu\", \"id\": 7, \"more\": 1}", null));
        assertThat(tombstone.row()).isNull();
        assertThat(tombstone.key()).isEqualTo(row);
    }

    @Test
    void aTombstoneWhoseKeyDoesNotNameARowIsADeadLetter() throws Exception {
        UpsertRecords records = json(List.of("region", "id"));
        assertThatThrownBy(() -> records.change(0, record((String) null, null)))
                .isInstanceOf(RowException.class)
                .hasMessageContaining("tombstone")
                .hasMessageContaining("[region, id]")
                .hasMessageContaining("has no key");
        assertThatThrownBy(() -> records.change(0, record("7", null)))
                .isInstanceOf(RowException.class)
                .hasMessageContaining("its key does not")
                .hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> records.change(0, record("{\"id\": 7}", null)))
                .isInstanceOf(RowException.class)
                .hasMessageContaining("region is missing");
        assertThat(records.keyOf(0, record("{\"id\": 7}", null))).isNull();
    }

    @Test
    void anAvroTombstonesKeyIsARecordOfTheKeyColumnsFramedAsValuesAre() throws Exception {
        for (boolean confluent : List.of(false, true)) {
            UpsertRecords records = new UpsertRecords(
                    Rows.tableSchema(new AvroValueDecoder(AVRO_SCHEMA, confluent).valueType(), List.of("id", "region")),
                    new AvroValueDecoder(AVRO_SCHEMA, confluent));
            Schema value = new Schema.Parser().parse(AVRO_SCHEMA);
            GenericData.Record account = new GenericData.Record(value);
            account.put("region", "eu");
            account.put("id", 7L);
            account.put("balance", 10L);
            // Debezium's key schema: a record of the primary key's fields.
            Schema keySchema = new Schema.Parser()
                    .parse("{\"type\": \"record\", \"name\": \"Key\", \"fields\": [{\"name\": \"region\", \"type\":"
                            + " \"string\"}, {\"name\": \"id\", \"type\": \"long\"}]}");
            GenericData.Record key = new GenericData.Record(keySchema);
            key.put("region", "eu");
            key.put("id", 7L);
            ByteBuffer row = records.change(0, record((byte[]) null, avro(value, account, confluent)))
                    .key();
            UpsertRecords.Change tombstone = records.change(0, record(avro(keySchema, key, confluent), null));
            assertThat(tombstone.key()).as("confluent framing %s", confluent).isEqualTo(row);
        }
    }

    @Test
    void byTheRecordKeyARecordWithoutOneIsADeadLetterAndATombstoneDeletesItsKey() throws Exception {
        UpsertRecords records = json(List.of());
        assertThat(records.key().isRecordKey()).isTrue();
        assertThatThrownBy(() -> records.change(0, record((String) null, value("eu", 1, 1))))
                .hasMessageContaining("this record has no key");
        assertThat(records.change(0, record("k", null)).key()).isEqualTo(bytes("k"));
        assertThat(records.change(0, record("k", value("eu", 1, 1))).key()).isEqualTo(bytes("k"));
        assertThat(records.keyOf(0, record("k", "not json".getBytes(StandardCharsets.UTF_8))))
                .as("the record key, the value unread")
                .isEqualTo(bytes("k"));
    }

    private static UpsertRecords json(List<String> keyColumns) {
        JsonValueDecoder values = new JsonValueDecoder(JSON_SCHEMA);
        return new UpsertRecords(Rows.tableSchema(values.valueType(), keyColumns), values);
    }

    private static byte[] value(String region, long id, long balance) {
        return ("{\"region\": \"" + region + "\", \"id\": " + id + ", \"balance\": " + balance + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static StoredRecord record(String key, byte[] value) {
        return record(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
    }

    private static StoredRecord record(byte[] key, byte[] value) {
        ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1L, key, value))
                .buffer();
        return StoredBatch.of(batch).records().iterator().next();
    }

    private static byte[] avro(Schema schema, GenericData.Record datum, boolean confluent) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (confluent) {
            out.write(new byte[] {0, 0, 0, 0, 1});
        }
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericData.Record>(schema).write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }
}
