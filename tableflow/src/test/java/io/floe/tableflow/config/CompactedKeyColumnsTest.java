package io.floe.tableflow.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.config.InvalidConfigException;
import io.floe.tableflow.Tableflow;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An upsert table keyed by columns of the value on a topic whose log compaction keeps the newest record
 * per record key is refused (INVALID_CONFIG, saying what to do) unless the topic declares that its record
 * keys map one-to-one to the key columns' values; a table keyed by the record key, or a topic without
 * compaction, needs no declaration.
 */
class CompactedKeyColumnsTest {

    private static final String SCHEMA = """
            {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}""";

    @Test
    void keyColumnsOnACompactedTopicAreRefusedUnlessRecordKeysAreDeclaredToMatch() {
        for (String policy : new String[] {"compact", "delete,compact", " compact , delete"}) {
            assertThatThrownBy(() -> Tableflow.validate(keyedById(policy)))
                    .isInstanceOf(InvalidConfigException.class)
                    .hasMessageContaining("floe.tableflow.upsert.key.columns=id keys the table by the value's columns,"
                            + " and cleanup.policy=" + policy + " keeps only the newest record of each record key")
                    .hasMessageContaining("set floe.tableflow.upsert.key.columns.match.record.key=true if each record"
                            + " key carries one id")
                    .hasMessageContaining("or set cleanup.policy=delete")
                    .hasMessageNotContaining("\n");
            Map<String, String> declared = keyedById(policy);
            declared.put(TableflowConfigs.UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY, " TRUE");
            assertThatCode(() -> Tableflow.validate(declared)).doesNotThrowAnyException();
            Map<String, String> denied = keyedById(policy);
            denied.put(TableflowConfigs.UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY, "false");
            assertThatThrownBy(() -> Tableflow.validate(denied)).isInstanceOf(InvalidConfigException.class);
        }
    }

    @Test
    void withoutCompactionOrKeyColumnsNothingIsDeclared() {
        assertThatCode(() -> Tableflow.validate(keyedById("delete"))).doesNotThrowAnyException();
        Map<String, String> byDefault = keyedById("delete");
        byDefault.remove("cleanup.policy");
        assertThatCode(() -> Tableflow.validate(byDefault)).doesNotThrowAnyException();
        Map<String, String> byRecordKey = keyedById("compact");
        byRecordKey.remove(TableflowConfigs.UPSERT_KEY_COLUMNS);
        assertThatCode(() -> Tableflow.validate(byRecordKey)).doesNotThrowAnyException();
    }

    @Test
    void aDeclarationThatIsNoBooleanIsRefused() {
        Map<String, String> configs = keyedById("delete");
        configs.put(TableflowConfigs.UPSERT_KEY_COLUMNS_MATCH_RECORD_KEY, "yes");
        assertThatThrownBy(() -> Tableflow.validate(configs))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("Invalid value yes for configuration floe.tableflow.upsert.key.columns.match.record.key:"
                        + " expected true or false");
    }

    private static Map<String, String> keyedById(String cleanupPolicy) {
        return new HashMap<>(Map.of(
                "cleanup.policy",
                cleanupPolicy,
                TableflowConfigs.ENABLED,
                "true",
                TableflowConfigs.MODE,
                "upsert",
                TableflowConfigs.FORMAT,
                "json",
                TableflowConfigs.SCHEMA,
                SCHEMA,
                TableflowConfigs.UPSERT_KEY_COLUMNS,
                "id"));
    }
}
