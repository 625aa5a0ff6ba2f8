package io.floe.tableflow.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.config.InvalidConfigException;
import io.floe.tableflow.Tableflow;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class RowsTest {

    /**
     * The names Spark's Iceberg runtime, Spark and Delta, Trino and Snowflake take for hidden or metadata
     * columns; a Floe table column of one of these names is refused or shadowed by that engine.
     */
    private static final List<String> ENGINE_NAMES = List.of(
            "_file",
            "_pos",
            "_deleted",
            "_spec_id",
            "_partition",
            "_change_type",
            "_change_ordinal",
            "_commit_snapshot_id",
            "_row_id",
            "_last_updated_sequence_number",
            "_metadata",
            "_commit_version",
            "_commit_timestamp",
            "$path",
            "$partition",
            "METADATA$FILENAME");

    @Test
    void noColumnOfATableOrADeadLetterTableTakesANameAnEngineReserves() {
        Schema table = Rows.tableSchema(new RawValueDecoder().valueType());
        Schema deadLetters = Rows.deadLetterSchema();
        for (Schema schema : List.of(table, deadLetters)) {
            for (Types.NestedField column : schema.columns()) {
                assertThat(ReservedNames.reservedBy(column.name()))
                        .as(column.name())
                        .isEmpty();
                assertThat(column.name())
                        .as("no leading underscore, the prefix engines use for hidden columns")
                        .doesNotStartWith("_");
            }
        }
        assertThat(table.columns())
                .extracting(Types.NestedField::name)
                .containsExactly(
                        "kafka_partition", "kafka_offset", "kafka_timestamp", "kafka_key", "kafka_headers", "value");
        assertThat(deadLetters.columns())
                .extracting(Types.NestedField::name)
                .containsExactly(
                        "kafka_partition",
                        "kafka_offset",
                        "kafka_timestamp",
                        "kafka_key",
                        "kafka_headers",
                        "kafka_value",
                        "floe_error");
    }

    @Test
    void aValueFieldNamedLikeAReservedNameIsRefusedWithTheReason() {
        for (String name : ENGINE_NAMES) {
            assertThatThrownBy(() -> Rows.tableSchema(valueType(name)))
                    .as(name)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("value field " + name)
                    .hasMessageContaining("reserve")
                    .hasMessageContaining("rename the field");
        }
        // Case does not help: Spark, Trino and Snowflake resolve unquoted names case-insensitively.
        assertThatThrownBy(() -> Rows.tableSchema(valueType("_Partition")))
                .hasMessageContaining("Iceberg reserves for its metadata columns");
        // A leading underscore alone is fine (MongoDB's _id, for one).
        assertThat(Rows.tableSchema(valueType("_id")).findField("_id")).isNotNull();
    }

    @Test
    void aValueFieldNamedLikeAMetadataColumnIsRefused() {
        for (String name :
                List.of("kafka_partition", "kafka_offset", "KAFKA_TIMESTAMP", "kafka_key", "kafka_headers")) {
            assertThatThrownBy(() -> Rows.tableSchema(valueType(name)))
                    .as(name)
                    .hasMessageContaining("value field " + name + " of the declared schema collides with the Kafka"
                            + " metadata column");
        }
    }

    @Test
    void aDeclaredSchemaWithAReservedFieldIsRefusedWhenItIsSet() {
        String json = """
                {"type": "object", "properties": {"id": {"type": "integer"}, "_partition": {"type": "string"}}}""";
        assertThatThrownBy(() -> Tableflow.validate(Map.of(
                        "floe.tableflow.enabled",
                        "true",
                        "floe.tableflow.format",
                        "json",
                        "floe.tableflow.schema",
                        json)))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("value field _partition of the declared schema is a name Iceberg reserves for"
                        + " its metadata columns");
        String avro = """
                {"type": "record", "name": "Order", "fields": [{"name": "kafka_offset", "type": "long"}]}""";
        assertThatThrownBy(() -> Tableflow.validate(Map.of(
                        "floe.tableflow.enabled",
                        "true",
                        "floe.tableflow.format",
                        "avro",
                        "floe.tableflow.schema",
                        avro)))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("value field kafka_offset of the declared schema collides");
    }

    private static Types.StructType valueType(String name) {
        return Types.StructType.of(Types.NestedField.optional(1, name, Types.StringType.get()));
    }
}
