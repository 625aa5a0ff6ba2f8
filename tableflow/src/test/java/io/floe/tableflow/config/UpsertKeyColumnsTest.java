package io.floe.tableflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.config.InvalidConfigException;
import io.floe.tableflow.Tableflow;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code floe.tableflow.upsert.key.columns}: parsed, and refused as CreateTopics and AlterConfigs refuse
 * it (INVALID_CONFIG) with what to do, unless each column is a required top-level field of a primitive
 * type other than float or double of an upsert table's declared schema.
 */
class UpsertKeyColumnsTest {

    private static final String JSON_SCHEMA = """
            {"type": "object", "required": ["region", "id", "score", "address", "nullable"], "properties": {
              "region": {"type": "string"}, "id": {"type": "integer"}, "score": {"type": "number"},
              "address": {"type": "object", "properties": {"city": {"type": "string"}}},
              "nullable": {"type": ["string", "null"]}, "note": {"type": "string"}}}""";
    private static final String AVRO_SCHEMA = """
            {"type": "record", "name": "Account", "fields": [
              {"name": "id", "type": "long"}, {"name": "email", "type": ["null", "string"], "default": null}]}""";

    @Test
    void emptyMeansTheRecordKeyAndAListIsTrimmed() {
        assertThat(TableSettings.from(Map.of()).upsertKeyColumns()).isEmpty();
        assertThat(TableSettings.from(json(" region , id ")).upsertKeyColumns()).containsExactly("region", "id");
        assertThatCode(() -> Tableflow.validate(json("region,id"))).doesNotThrowAnyException();
        assertThatCode(() -> Tableflow.validate(avro("id"))).doesNotThrowAnyException();
    }

    @Test
    void keyColumnsNeedAnUpsertTableOfValuesWithFields() {
        Map<String, String> append = json("id");
        append.put(TableflowConfigs.MODE, "append");
        assertThatThrownBy(() -> Tableflow.validate(append))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("floe.tableflow.upsert.key.columns=id keys an upsert table")
                .hasMessageContaining("floe.tableflow.mode is append");
        Map<String, String> raw =
                new HashMap<>(Map.of(TableflowConfigs.MODE, "upsert", TableflowConfigs.UPSERT_KEY_COLUMNS, "value"));
        assertThatThrownBy(() -> Tableflow.validate(raw))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("raw values have none");
    }

    @Test
    void aColumnThatIsNoFieldOrNamedTwiceIsRefused() {
        assertThatThrownBy(() -> Tableflow.validate(json("ID")))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("names ID, which is not a top-level field of the declared schema")
                .hasMessageContaining("did you mean id?");
        assertThatThrownBy(() -> Tableflow.validate(json("address.city")))
                .hasMessageContaining("not a top-level field");
        assertThatThrownBy(() -> Tableflow.validate(json("id,region,id")))
                .hasMessageContaining("column id named twice");
        assertThatThrownBy(() -> Tableflow.validate(json("id,,region"))).hasMessageContaining("an empty column name");
    }

    @Test
    void aColumnOfAFloatingPointOrNestedTypeIsRefused() {
        assertThatThrownBy(() -> Tableflow.validate(json("score")))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("names score, a field of type double")
                .hasMessageContaining("primitive type other than float or double");
        assertThatThrownBy(() -> Tableflow.validate(json("address")))
                .hasMessageContaining("names address, a field of type struct");
    }

    @Test
    void aColumnThatMayBeMissingOrNullIsRefused() {
        for (Map<String, String> configs : java.util.List.of(json("note"), json("nullable"), avro("email"))) {
            assertThatThrownBy(() -> Tableflow.validate(configs))
                    .isInstanceOf(InvalidConfigException.class)
                    .hasMessageContaining("which the declared schema lets be missing or null")
                    .hasMessageContaining("a key column must be required");
        }
    }

    private static Map<String, String> json(String keyColumns) {
        return new HashMap<>(Map.of(
                TableflowConfigs.ENABLED, "true",
                TableflowConfigs.MODE, "upsert",
                TableflowConfigs.FORMAT, "json",
                TableflowConfigs.SCHEMA, JSON_SCHEMA,
                TableflowConfigs.UPSERT_KEY_COLUMNS, keyColumns));
    }

    private static Map<String, String> avro(String keyColumns) {
        return new HashMap<>(Map.of(
                TableflowConfigs.MODE,
                "upsert",
                TableflowConfigs.FORMAT,
                "avro",
                TableflowConfigs.SCHEMA,
                AVRO_SCHEMA,
                TableflowConfigs.UPSERT_KEY_COLUMNS,
                keyColumns));
    }
}
