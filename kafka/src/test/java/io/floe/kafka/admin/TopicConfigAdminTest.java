package io.floe.kafka.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.topic.NewTopic;
import io.floe.kafka.AgentFixture;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kafka-clients' Admin changing topic configs on a real agent, and the agent acting on them. */
class TopicConfigAdminTest {

    private static final ConfigResource ORDERS = new ConfigResource(ConfigResource.Type.TOPIC, "orders");

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private Admin admin;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
        fixture.agent().topics().create(new NewTopic("orders", 1, Map.of()), false);
        admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000));
    }

    @AfterEach
    void stop() {
        admin.close();
        fixture.close();
    }

    @Test
    void setAndDeleteShowInDescribeConfigsAndTheStore() throws Exception {
        alter(ORDERS, set("retention.ms", "1000"), set("floe.note", "kept"));

        ConfigEntry retention = describe(ORDERS, "retention.ms");
        assertThat(retention.value()).isEqualTo("1000");
        assertThat(retention.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(fixture.agent()
                        .metadata()
                        .topics()
                        .topic("orders")
                        .orElseThrow()
                        .configs())
                .containsOnly(Map.entry("retention.ms", "1000"), Map.entry("floe.note", "kept"));

        alter(ORDERS, new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE));

        ConfigEntry reset = describe(ORDERS, "retention.ms");
        assertThat(reset.value()).isEqualTo("604800000");
        assertThat(reset.source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        assertThat(fixture.agent()
                        .metadata()
                        .topics()
                        .topic("orders")
                        .orElseThrow()
                        .configs())
                .containsOnly(Map.entry("floe.note", "kept"));
    }

    @Test
    void appendAndSubtractChangeListConfigsFromTheirEffectiveValue() throws Exception {
        alter(ORDERS, new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND));
        assertThat(describe(ORDERS, "cleanup.policy").value()).isEqualTo("delete,compact");

        alter(ORDERS, new AlterConfigOp(new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.SUBTRACT));
        assertThat(describe(ORDERS, "cleanup.policy").value()).isEqualTo("compact");

        assertThatThrownBy(() -> alter(
                        ORDERS, new AlterConfigOp(new ConfigEntry("retention.ms", "5"), AlterConfigOp.OpType.APPEND)))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("retention.ms");
    }

    @Test
    void aLoweredMaxMessageBytesTakesEffectAtOnce() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(),
                        ProducerConfig.LINGER_MS_CONFIG, 0,
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000),
                new StringSerializer(),
                new StringSerializer())) {
            String large = "x".repeat(4000);
            assertThat(producer.send(new ProducerRecord<>("orders", large))
                            .get()
                            .offset())
                    .isZero();

            alter(ORDERS, set("max.message.bytes", "1024"));

            assertThatThrownBy(() ->
                            producer.send(new ProducerRecord<>("orders", large)).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RecordTooLargeException.class);
            assertThat(producer.send(new ProducerRecord<>("orders", "small"))
                            .get()
                            .offset())
                    .isEqualTo(1);
        }
    }

    @Test
    void unknownNamesBadValuesAndUnknownTopicsAreRefusedAndChangeNothing() {
        assertThatThrownBy(() -> alter(ORDERS, set("retention.ms", "1000"), set("no.such.config", "1")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("Unknown topic config name: no.such.config");
        assertThatThrownBy(() -> alter(ORDERS, set("retention.ms", "soon")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("soon");
        assertThatThrownBy(() -> alter(ORDERS, set("cleanup.policy", "forever")))
                .hasCauseInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(
                        () -> alter(new ConfigResource(ConfigResource.Type.TOPIC, "missing"), set("retention.ms", "1")))
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);

        assertThat(fixture.agent()
                        .metadata()
                        .topics()
                        .topic("orders")
                        .orElseThrow()
                        .configs())
                .isEmpty();
    }

    @Test
    void validateOnlyChecksWithoutStoring() throws Exception {
        admin.incrementalAlterConfigs(
                        Map.of(ORDERS, List.of(set("retention.ms", "1000"))),
                        new AlterConfigsOptions().validateOnly(true))
                .all()
                .get();

        assertThat(describe(ORDERS, "retention.ms").value()).isEqualTo("604800000");
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(
                                Map.of(ORDERS, List.of(set("retention.ms", "x"))),
                                new AlterConfigsOptions().validateOnly(true))
                        .all()
                        .get())
                .hasCauseInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void brokerConfigsAreRefusedUnlessOnlyValidated() throws Exception {
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "0");

        assertThatThrownBy(() -> alter(broker, set("log.retention.ms", "1000")))
                .hasCauseInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("dynamic broker configs are not supported; set them at agent start");
        admin.incrementalAlterConfigs(
                        Map.of(broker, List.of(set("log.retention.ms", "1000"))),
                        new AlterConfigsOptions().validateOnly(true))
                .all()
                .get();
        assertThat(describe(broker, "log.retention.ms").value()).isEqualTo("604800000");
    }

    private void alter(ConfigResource resource, AlterConfigOp... operations) throws Exception {
        Map<ConfigResource, Collection<AlterConfigOp>> change = Map.of(resource, List.of(operations));
        admin.incrementalAlterConfigs(change).all().get();
    }

    private ConfigEntry describe(ConfigResource resource, String name) throws Exception {
        return admin.describeConfigs(List.of(resource))
                .all()
                .get()
                .get(resource)
                .get(name);
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }
}
