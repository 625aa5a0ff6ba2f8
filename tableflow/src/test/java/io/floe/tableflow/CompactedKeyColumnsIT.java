package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Over the Kafka protocol, in both orders: a topic keyed by id columns of its values cannot be made
 * compacted, nor a compacted topic keyed by id columns, by CreateTopics or IncrementalAlterConfigs (set
 * and append), unless it declares that its record keys map one-to-one to the ids; the answer is
 * INVALID_CONFIG saying what to do. (AlterConfigs, which Kafka 4's Java Admin no longer sends, changes
 * configs through the same checks: {@code ConfigAlteration}.)
 */
class CompactedKeyColumnsIT {

    private static final String SCHEMA = """
            {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}""";
    private static final Map<String, String> KEYED_BY_ID = Map.of(
            "floe.tableflow.enabled", "true",
            "floe.tableflow.mode", "upsert",
            "floe.tableflow.format", "json",
            "floe.tableflow.schema", SCHEMA,
            "floe.tableflow.upsert.key.columns", "id");
    private static final String MATCH = "floe.tableflow.upsert.key.columns.match.record.key";
    private static final String ADVICE = "set " + MATCH + "=true if each record key carries one id";

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private Admin admin;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir);
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()));
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        floe.close();
    }

    @Test
    void createTopicsRefusesBothAtOnceUnlessDeclared() throws Exception {
        Map<String, String> both = new HashMap<>(KEYED_BY_ID);
        both.put("cleanup.policy", "compact");
        assertRefused(() -> create("both", both));
        both.put(MATCH, "true");
        create("both", both);
        assertThat(floe.agent.topics().find("both")).isPresent();
    }

    @Test
    void compactionIsRefusedOnATopicKeyedByIdColumns() throws Exception {
        create("keyed", KEYED_BY_ID);
        assertRefused(() -> alter("keyed", "cleanup.policy", "compact", AlterConfigOp.OpType.SET));
        assertRefused(() -> alter("keyed", "cleanup.policy", "compact", AlterConfigOp.OpType.APPEND));
        assertRefused(() -> alter("keyed", "cleanup.policy", "compact,delete", AlterConfigOp.OpType.SET));
        assertThat(floe.agent.topics().find("keyed").orElseThrow().configs()).doesNotContainKey("cleanup.policy");

        alter("keyed", MATCH, "true", AlterConfigOp.OpType.SET);
        alter("keyed", "cleanup.policy", "compact", AlterConfigOp.OpType.SET);
        assertThat(floe.agent.topics().find("keyed").orElseThrow().configs())
                .containsEntry("cleanup.policy", "compact");
        // Taking the declaration back while the topic is compacted is refused too.
        assertRefused(() -> alter("keyed", MATCH, "false", AlterConfigOp.OpType.SET));
    }

    @Test
    void idColumnsAreRefusedOnACompactedTopic() throws Exception {
        create("compacted", Map.of("cleanup.policy", "compact"));
        List<AlterConfigOp> enable = KEYED_BY_ID.entrySet().stream()
                .map(entry ->
                        new AlterConfigOp(new ConfigEntry(entry.getKey(), entry.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        assertRefused(() -> admin.incrementalAlterConfigs(Map.of(topic("compacted"), enable))
                .all()
                .get());
        Map<String, String> declared = new HashMap<>(KEYED_BY_ID);
        declared.put(MATCH, "true");
        List<AlterConfigOp> enableDeclared = declared.entrySet().stream()
                .map(entry ->
                        new AlterConfigOp(new ConfigEntry(entry.getKey(), entry.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        admin.incrementalAlterConfigs(Map.of(topic("compacted"), enableDeclared))
                .all()
                .get();
        assertThat(floe.agent.topics().find("compacted").orElseThrow().configs())
                .containsEntry("floe.tableflow.upsert.key.columns", "id");
    }

    /** An admin call that throws; answered INVALID_CONFIG with the advice. */
    @FunctionalInterface
    private interface AdminCall {
        void run() throws Exception;
    }

    private static void assertRefused(AdminCall call) {
        assertThatThrownBy(call::run)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("keeps only the newest record of each record key")
                .hasMessageContaining(ADVICE);
    }

    private void create(String name, Map<String, String> configs) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, 1, (short) 1).configs(configs)))
                .all()
                .get();
    }

    private void alter(String name, String config, String value, AlterConfigOp.OpType op) throws Exception {
        admin.incrementalAlterConfigs(
                        Map.of(topic(name), List.of(new AlterConfigOp(new ConfigEntry(config, value), op))))
                .all()
                .get();
    }

    private static ConfigResource topic(String name) {
        return new ConfigResource(ConfigResource.Type.TOPIC, name);
    }
}
