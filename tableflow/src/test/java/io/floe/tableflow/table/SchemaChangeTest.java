package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.config.InvalidConfigException;
import io.floe.core.topic.Topic;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
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

    private static Topic topic(String schema) {
        return new Topic("orders", UUID.randomUUID(), 3, configs(schema));
    }

    private static Map<String, String> configs(String schema) {
        return Map.of(
                "floe.tableflow.enabled", "true", "floe.tableflow.format", "json", "floe.tableflow.schema", schema);
    }
}
