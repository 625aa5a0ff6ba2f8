package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.config.InvalidConfigException;
import io.floe.core.topic.Topic;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.rows.ValueDecoder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** A declared schema change is refused when the table could not take it, before any round fails on it. */
class SchemaChangeTest {

    private static final String V1 = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}}}";
    private final SchemaChange check = new SchemaChange(null);

    @Test
    void aFieldWhoseTypeChangesIsRefusedWithIcebergsReason() {
        String v2 = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}}}";
        assertThatThrownBy(() -> check.accept(topic(V1), configs(v2)))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("floe.tableflow.schema of topic orders does not fit its table")
                .hasMessageContaining("id")
                .hasMessageContaining("string");
    }

    @Test
    void anAddedFieldAndAWidenedTypeAreAccepted() {
        String v2 =
                "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"}}}";
        assertThatCode(() -> check.accept(topic(V1), configs(v2))).doesNotThrowAnyException();
        Schema narrow = new Schema(Types.NestedField.optional(1, "x", Types.IntegerType.get()));
        Schema wide = new Schema(Types.NestedField.optional(1, "x", Types.LongType.get()));
        assertThat(SchemaChange.widened(narrow, wide).findField("x").type()).isEqualTo(Types.LongType.get());
    }

    @Test
    void otherConfigChangesAndTopicsWithoutASchemaAreNotChecked() {
        assertThatCode(() -> check.accept(
                        topic(V1),
                        Map.of(
                                "floe.tableflow.enabled",
                                "true",
                                "floe.tableflow.format",
                                "json",
                                "floe.tableflow.schema",
                                V1,
                                "retention.ms",
                                "1000")))
                .doesNotThrowAnyException();
        assertThatCode(() ->
                        check.accept(new Topic("plain", UUID.randomUUID(), 1, Map.of()), Map.of("retention.ms", "1")))
                .doesNotThrowAnyException();
    }

    @Test
    void aTopicBeingCreatedIsCheckedOnlyAgainstATableLeftBehind() {
        Topic creating = new Topic("orders", new UUID(0, 0), 3, Map.of());
        assertThatCode(() -> check.accept(creating, configs(V1))).doesNotThrowAnyException();
    }

    @Test
    void theKeyColumnsOfAnExistingUpsertTableCannotChange() {
        InMemoryCatalog memory = new InMemoryCatalog();
        memory.initialize("memory", Map.of());
        TableCatalog tables = new TableCatalog(memory, "floe");
        Map<String, String> byId = upsert("id");
        TableSettings settings = TableSettings.from(byId);
        Table table = tables.loadOrCreate(
                "orders",
                Rows.tableSchema(ValueDecoder.of(settings).valueType(), settings.upsertKeyColumns()),
                settings);
        assertThat(table.schema().identifierFieldNames()).containsExactly("id");
        SchemaChange withTable = new SchemaChange(tables);
        Topic topic = new Topic("orders", UUID.randomUUID(), 3, byId);

        assertThatCode(() -> withTable.accept(topic, upsert(" id "))).doesNotThrowAnyException();
        for (String other : List.of("id,name", "name", "")) {
            assertThatThrownBy(() -> withTable.accept(topic, upsert(other)))
                    .isInstanceOf(InvalidConfigException.class)
                    .hasMessageContaining("floe.orders is keyed by the columns [id], fixed when it was created")
                    .hasMessageContaining("asks for floe.tableflow.upsert.key.columns=" + other.trim())
                    .hasMessageContaining("set floe.tableflow.upsert.key.columns=id");
            assertThatThrownBy(() -> tables.loadOrCreate("orders", table.schema(), TableSettings.from(upsert(other))))
                    .as("a round of the changed topic")
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("a table's key cannot change");
        }
        assertThatCode(() -> check.accept(topic, upsert("name")))
                .as("without the table, nothing is fixed yet")
                .doesNotThrowAnyException();
    }

    private static Map<String, String> upsert(String keyColumns) {
        Map<String, String> configs = new HashMap<>(
                configs("{\"type\":\"object\",\"required\":[\"id\",\"name\"],\"properties\":{\"id\":{\"type\":"
                        + "\"integer\"},\"name\":{\"type\":\"string\"}}}"));
        configs.put("floe.tableflow.mode", "upsert");
        configs.put("floe.tableflow.upsert.key.columns", keyColumns);
        return configs;
    }

    private static Topic topic(String schema) {
        return new Topic("orders", UUID.randomUUID(), 3, configs(schema));
    }

    private static Map<String, String> configs(String schema) {
        return Map.of(
                "floe.tableflow.enabled", "true", "floe.tableflow.format", "json", "floe.tableflow.schema", schema);
    }
}
