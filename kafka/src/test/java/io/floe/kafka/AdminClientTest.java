package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kafka-clients' Admin against a real agent over loopback. */
class AdminClientTest {

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private Admin admin;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
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
    void createsTopicsAndReportsTheirConfigs() throws Exception {
        CreateTopicsResult result = admin.createTopics(List.of(
                new NewTopic("orders", 3, (short) 1).configs(Map.of("retention.ms", "1000")),
                new NewTopic("defaults", Optional.empty(), Optional.empty())));

        result.all().get();
        assertThat(result.numPartitions("orders").get()).isEqualTo(3);
        assertThat(result.numPartitions("defaults").get())
                .isEqualTo(fixture.agent().config().defaultPartitions());
        assertThat(result.replicationFactor("orders").get()).isEqualTo(1);
        assertThat(result.topicId("orders").get()).isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(result.config("orders").get().get("retention.ms").value()).isEqualTo("1000");
        assertThat(admin.listTopics().names().get()).containsExactlyInAnyOrder("orders", "defaults");
    }

    @Test
    void validateOnlyCreatesNothing() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                .all()
                .get();

        assertThat(admin.listTopics().names().get()).isEmpty();
    }

    @Test
    void refusesExistingTopicsBadNamesAndBadConfigs() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get();

        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1)))
                        .all()
                        .get())
                .hasCauseInstanceOf(TopicExistsException.class);
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("bad/name", 1, (short) 1)))
                        .all()
                        .get())
                .hasCauseInstanceOf(InvalidTopicException.class);
        assertThatThrownBy(() -> admin.createTopics(
                                List.of(new NewTopic("configs", 1, (short) 1).configs(Map.of("retention.ms", "soon"))))
                        .all()
                        .get())
                .hasCauseInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void describesTopicsWithThisAgentLeadingEveryPartition() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();

        TopicDescription description =
                admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders");

        assertThat(description.partitions()).hasSize(2).allSatisfy(partition -> {
            assertThat(partition.leader().id()).isEqualTo(0);
            assertThat(partition.replicas()).hasSize(1);
            assertThat(partition.isr()).hasSize(1);
        });
        Uuid id = description.topicId();
        assertThat(admin.describeTopics(TopicCollection.ofTopicIds(List.of(id)))
                        .allTopicIds()
                        .get()
                        .get(id)
                        .name())
                .isEqualTo("orders");
    }

    @Test
    void describesTopicAndBrokerConfigs() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1).configs(Map.of("retention.ms", "1000"))))
                .all()
                .get();
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "orders");
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "0");

        Map<ConfigResource, Config> configs =
                admin.describeConfigs(List.of(topic, broker)).all().get();

        ConfigEntry retention = configs.get(topic).get("retention.ms");
        assertThat(retention.value()).isEqualTo("1000");
        assertThat(retention.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(configs.get(topic).get("cleanup.policy").source())
                .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        assertThat(configs.get(broker).get("node.id").value()).isEqualTo("0");
        assertThat(configs.get(broker).get("advertised.listeners").value())
                .isEqualTo("PLAINTEXT://" + fixture.bootstrap());
        assertThat(configs.get(broker).get("num.partitions").source())
                .isEqualTo(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
        assertThatThrownBy(() -> admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "nope")))
                        .all()
                        .get())
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void addsPartitionsButNeverRemovesThem() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();

        admin.createPartitions(Map.of("orders", NewPartitions.increaseTo(5)))
                .all()
                .get();

        assertThat(admin.describeTopics(List.of("orders"))
                        .allTopicNames()
                        .get()
                        .get("orders")
                        .partitions())
                .hasSize(5);
        assertThatThrownBy(() -> admin.createPartitions(Map.of("orders", NewPartitions.increaseTo(3)))
                        .all()
                        .get())
                .hasCauseInstanceOf(InvalidPartitionsException.class);
        assertThatThrownBy(() -> admin.createPartitions(Map.of("nope", NewPartitions.increaseTo(3)))
                        .all()
                        .get())
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void deletesTopicsByNameAndById() throws Exception {
        CreateTopicsResult created = admin.createTopics(
                List.of(new NewTopic("orders", 1, (short) 1), new NewTopic("payments", 1, (short) 1)));
        created.all().get();

        admin.deleteTopics(List.of("orders")).all().get();
        admin.deleteTopics(TopicCollection.ofTopicIds(
                        List.of(created.topicId("payments").get())))
                .all()
                .get();

        assertThat(admin.listTopics().names().get()).isEmpty();
        assertThatThrownBy(() -> admin.deleteTopics(List.of("orders")).all().get())
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void describesTheClusterAsOneBroker() throws Exception {
        DescribeClusterResult cluster = admin.describeCluster();

        assertThat(cluster.clusterId().get()).isEqualTo(fixture.agent().config().clusterId());
        assertThat(cluster.controller().get().id()).isZero();
        assertThat(cluster.nodes().get()).singleElement().satisfies(node -> {
            assertThat(node.id()).isZero();
            assertThat(node.port()).isEqualTo(fixture.server().port());
        });
        assertThat(Set.of(cluster.nodes().get().iterator().next().host())).containsExactly("127.0.0.1");
    }
}
