package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.config.ValueFormat;
import io.floe.tableflow.rows.AvroValueDecoder;
import io.floe.tableflow.rows.JsonValueDecoder;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The settings a commit decoded with: named by a fingerprint that tells every edit of format, schema or
 * framing apart and no other setting, kept as JSON that reads back as the same settings and decoder.
 */
class RecordDecodingTest {

    private static final String JSON_SCHEMA = """
            {"type": "object", "properties": {"id": {"type": "integer"}}}""";
    private static final String AVRO_SCHEMA = """
            {"type": "record", "name": "A", "fields": [{"name": "id", "type": "long"}]}""";

    @Test
    void theFingerprintTellsEveryDecodingEditApart() {
        List<RecordDecoding> edits = List.of(
                new RecordDecoding(ValueFormat.JSON, JSON_SCHEMA, false),
                new RecordDecoding(ValueFormat.JSON, JSON_SCHEMA.replace("}}}", "}}, \"required\": [\"id\"]}"), false),
                new RecordDecoding(ValueFormat.AVRO, AVRO_SCHEMA, false),
                new RecordDecoding(ValueFormat.AVRO, AVRO_SCHEMA, true),
                new RecordDecoding(ValueFormat.RAW, "", false));
        Set<String> fingerprints = new HashSet<>();
        for (RecordDecoding edit : edits) {
            assertThat(edit.fingerprint()).hasSize(32).matches("[0-9a-f]+").isEqualTo(edit.fingerprint());
            fingerprints.add(edit.fingerprint());
            assertThat(RecordDecoding.parse(edit.toJson())).isEqualTo(edit);
        }
        assertThat(fingerprints).hasSameSizeAs(edits);
    }

    @Test
    void onlyTheSettingsThatDecideARowCount() {
        Map<String, String> configs = Map.of(
                "floe.tableflow.format",
                "JSON ",
                "floe.tableflow.schema",
                JSON_SCHEMA,
                "floe.tableflow.enabled",
                "true");
        Map<String, String> tuned = Map.of(
                "floe.tableflow.format",
                "json",
                "floe.tableflow.schema",
                JSON_SCHEMA,
                "floe.tableflow.commit.interval.ms",
                "5",
                "floe.tableflow.compression",
                "zstd");
        assertThat(RecordDecoding.of(TableSettings.from(configs)).fingerprint())
                .isEqualTo(RecordDecoding.of(TableSettings.from(tuned)).fingerprint());
    }

    @Test
    void theKeptSettingsMakeTheirDecoder() {
        assertThat(RecordDecoding.parse(new RecordDecoding(ValueFormat.JSON, JSON_SCHEMA, false).toJson())
                        .decoder())
                .isInstanceOf(JsonValueDecoder.class);
        assertThat(RecordDecoding.parse(new RecordDecoding(ValueFormat.AVRO, AVRO_SCHEMA, true).toJson())
                        .decoder())
                .isInstanceOf(AvroValueDecoder.class);
    }
}
