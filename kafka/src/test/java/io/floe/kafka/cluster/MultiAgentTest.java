package io.floe.kafka.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.kafka.KafkaServer;
import io.floe.kafka.KafkaServerConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.postgres.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two agents sharing one PostgreSQL metadata store and one object store directory, with real Kafka
 * clients: both are listed as brokers, partitions are spread over them, records produced through
 * both are consumed from both, and when one agent leaves its partitions move to the other.
 */
@Timeout(180)
class MultiAgentTest {

    private static final int PARTITIONS = 8;

    @TempDir
    Path dir;

    private final List<Running> agents = new ArrayList<>();

    @BeforeEach
    void start() {
        String url = TestPostgres.get().createDatabaseUrl();
        agents.add(Running.start(1, url, dir.resolve("objects")));
        agents.add(Running.start(2, url, dir.resolve("objects")));
    }

    @AfterEach
    void stop() {
        agents.forEach(Running::close);
    }

    @Test
    void clientsSeeBothAgentsAndReadEveryRecordWhicheverAgentTookIt() throws Exception {
        try (Admin admin = Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, agents.get(0).bootstrap()))) {
            awaitBrokers(admin, 2);
            admin.createTopics(List.of(new NewTopic("spread", PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            TopicDescription topic = admin.describeTopics(List.of("spread"))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get("spread");
            Set<Integer> leaders = new HashSet<>();
            for (TopicPartitionInfo partition : topic.partitions()) {
                leaders.add(partition.leader().id());
            }
            assertThat(leaders).as("partition leaders").containsExactlyInAnyOrder(1, 2);
        }

        Map<Integer, List<String>> sent = produce(agents.get(1).bootstrap(), "spread", 2000);
        assertThat(consumeAll(agents.get(0).bootstrap(), "spread", 2000)).isEqualTo(sent);
    }

    @Test
    void whenAnAgentLeavesItsPartitionsMoveToTheOther() throws Exception {
        try (Admin admin = Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, agents.get(0).bootstrap()))) {
            awaitBrokers(admin, 2);
            admin.createTopics(List.of(new NewTopic("moving", PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            Map<Integer, List<String>> before = produce(agents.get(0).bootstrap(), "moving", 500);

            agents.remove(1).close();
            awaitBrokers(admin, 1);
            TopicDescription topic = admin.describeTopics(List.of("moving"))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get("moving");
            assertThat(topic.partitions())
                    .allSatisfy(p -> assertThat(p.leader().id()).isEqualTo(1));

            Map<Integer, List<String>> after = produce(agents.get(0).bootstrap(), "moving", 500);
            Map<Integer, List<String>> all = new HashMap<>(before);
            after.forEach((p, values) -> all.merge(p, values, (a, b) -> {
                List<String> both = new ArrayList<>(a);
                both.addAll(b);
                return both;
            }));
            assertThat(consumeAll(agents.get(0).bootstrap(), "moving", 1000)).isEqualTo(all);
        }
    }

    @Test
    void aGroupResumesFromItsCommittedOffsetsWhenItsCoordinatorLeaves() throws Exception {
        int coordinator;
        try (Admin admin = Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, agents.get(0).bootstrap()))) {
            awaitBrokers(admin, 2);
            admin.createTopics(List.of(new NewTopic("grouped", PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            produce(agents.get(0).bootstrap(), "grouped", 400);
            assertThat(consumeInGroup(agents.get(0).bootstrap(), "grouped", "readers", 400))
                    .hasSize(400);
            coordinator =
                    agents.get(0).agent().cluster().coordinatorOf("readers").nodeId();
        }
        Running leaving = agents.stream()
                .filter(a -> a.agent().config().nodeId() == coordinator)
                .findFirst()
                .orElseThrow();
        agents.remove(leaving);
        leaving.close();
        String survivor = agents.get(0).bootstrap();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, survivor))) {
            awaitBrokers(admin, 1);
        }

        Map<Integer, List<String>> more = produce(survivor, "grouped", 80);
        List<String> expected =
                more.values().stream().flatMap(List::stream).sorted().toList();
        assertThat(consumeInGroup(survivor, "grouped", "readers", 80))
                .as("only what came after the commit")
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    /** Consumes {@code count} records in group {@code group}, committing after each poll; returns the values. */
    private static List<String> consumeInGroup(String bootstrap, String topic, String group, int count) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(record.value());
                }
                consumer.commitSync();
            }
        }
        return values;
    }

    /** Waits, by polling the cluster description, until exactly {@code count} brokers are listed. */
    private static void awaitBrokers(Admin admin, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Collection<Node> nodes = List.of();
        while (System.nanoTime() < deadline) {
            nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            if (nodes.size() == count) {
                return;
            }
            Thread.onSpinWait();
        }
        assertThat(nodes).as("brokers listed").hasSize(count);
    }

    private static Map<Integer, List<String>> produce(String bootstrap, String topic, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "500");
        Map<Integer, List<String>> sent = new HashMap<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                int partition = i % PARTITIONS;
                String value = topic + "-" + System.nanoTime() + "-" + i;
                acks.add(producer.send(new ProducerRecord<>(topic, partition, null, value)));
                sent.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
        return sent;
    }

    private static Map<Integer, List<String>> consumeAll(String bootstrap, String topic, int count) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<Integer, List<String>> received = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int seen = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (seen < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    received.computeIfAbsent(record.partition(), p -> new ArrayList<>())
                            .add(record.value());
                    seen++;
                }
            }
        }
        return received;
    }

    /** One agent with its own metadata store connection pool and Kafka listener. */
    private record Running(MetadataStore metadata, LocalObjectStore objects, Agent agent, KafkaServer server)
            implements AutoCloseable {

        static Running start(int nodeId, String metadataUrl, Path objectsDir) {
            int port = freePort();
            MetadataStore metadata = SqlMetadataStore.openPostgres(metadataUrl, Clock.systemUTC());
            LocalObjectStore objects = new LocalObjectStore(objectsDir);
            AgentConfig config = AgentConfig.defaults()
                    .withIdentity(nodeId, "agent-" + nodeId)
                    .withAdvertised("127.0.0.1", port)
                    .withFlush(Duration.ofMillis(5), 1024 * 1024);
            Agent agent = Agent.start(
                    config, AgentMetadata.of(metadata), objects, new SimpleMeterRegistry(), Clock.systemUTC());
            KafkaServer server = KafkaServer.start(KafkaServerConfig.defaults().withListener("127.0.0.1", port), agent);
            return new Running(metadata, objects, agent, server);
        }

        String bootstrap() {
            return "127.0.0.1:" + server.port();
        }

        @Override
        public void close() {
            server.close();
            agent.close();
            metadata.close();
            objects.close();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
