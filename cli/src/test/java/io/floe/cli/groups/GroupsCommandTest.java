package io.floe.cli.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.cli.Floe;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.kafka.KafkaServer;
import io.floe.kafka.KafkaServerConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code floe groups} through picocli against a whole agent in-process (embedded stores in a temp
 * directory, Kafka on a free loopback port).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GroupsCommandTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    @TempDir
    Path dataDir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private MetadataStore metadata;
    private LocalObjectStore objects;
    private Agent agent;
    private KafkaServer server;
    private Admin admin;

    @BeforeEach
    void start() throws IOException {
        int port = freePort();
        metadata = SqlMetadataStore.openSqlite(dataDir.resolve("metadata.db"));
        objects = new LocalObjectStore(dataDir.resolve("objects"));
        agent = Agent.start(
                AgentConfig.defaults().withAdvertised("127.0.0.1", port).withFlush(Duration.ofMillis(5), 1024 * 1024),
                AgentMetadata.of(metadata),
                objects,
                new SimpleMeterRegistry(),
                Clock.systemUTC());
        server = KafkaServer.start(KafkaServerConfig.defaults().withListener("127.0.0.1", port), agent);
        agent.topics().create(new NewTopic("orders", 2, Map.of()), false);
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
        produce(ORDERS_0, 10);
        produce(ORDERS_1, 5);
    }

    @AfterEach
    void stop() {
        admin.close();
        server.close();
        agent.close();
        metadata.close();
        objects.close();
    }

    @Test
    void listsGroupsWithTheirStates() throws Exception {
        commit("billing", Map.of(ORDERS_0, 4L));
        commit("audit", Map.of(ORDERS_1, 1L));

        assertThat(groups("list")).isZero();
        assertThat(out.toString().lines()).containsExactly("audit", "billing");

        assertThat(groups("list", "--state")).isZero();
        assertThat(out.toString().lines()).containsExactly("GROUP    STATE", "audit    Empty", "billing  Empty");
    }

    @Test
    void describeShowsOffsetsLogEndsAndLagPerPartition() throws Exception {
        commit("billing", Map.of(ORDERS_0, 4L, ORDERS_1, 5L));

        assertThat(groups("describe", "billing")).isZero();

        assertThat(out.toString().lines())
                .containsExactly(
                        "Consumer group 'billing' has no active members.",
                        "GROUP    TOPIC   PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID",
                        "billing  orders  0          4               10              6    -            -     -",
                        "billing  orders  1          5               5               0    -            -     -");
    }

    @Test
    void describeShowsTheMemberConsumingEachPartition() throws Exception {
        try (KafkaConsumer<String, String> consumer = consumer("live")) {
            consumer.subscribe(List.of("orders"));
            pollUntilAssigned(consumer, 2);
            consumer.commitSync(Map.of(ORDERS_0, new OffsetAndMetadata(7)));

            assertThat(groups("describe", "live")).isZero();

            String described = out.toString();
            assertThat(described).doesNotContain("no active members");
            assertThat(described.lines().filter(line -> line.startsWith("live")))
                    .hasSize(2)
                    .allSatisfy(line -> assertThat(line).contains("groups-test-client", "/127.0.0.1"))
                    .anySatisfy(line -> assertThat(line).matches("live\\s+orders\\s+0\\s+7\\s+10\\s+3\\s+.*"))
                    .anySatisfy(line -> assertThat(line).matches("live\\s+orders\\s+1\\s+-\\s+5\\s+-\\s+.*"));

            assertThat(groups("reset-offsets", "live", "--to-earliest", "--execute"))
                    .isEqualTo(1);
            assertThat(err.toString())
                    .startsWith("floe groups reset-offsets: offsets can only be reset while group"
                            + " 'live' is inactive, but its state is Stable");
        }
    }

    @Test
    void resetIsADryRunUnlessExecuted() throws Exception {
        commit("billing", Map.of(ORDERS_0, 4L, ORDERS_1, 5L));

        assertThat(groups("reset-offsets", "billing", "--to-earliest")).isZero();
        assertThat(out.toString().lines())
                .containsExactly(
                        "GROUP    TOPIC   PARTITION  NEW-OFFSET",
                        "billing  orders  0          0",
                        "billing  orders  1          0",
                        "Dry run: nothing committed. Rerun with --execute to commit these offsets.");
        assertThat(committed("billing")).containsEntry(ORDERS_0, 4L).containsEntry(ORDERS_1, 5L);

        assertThat(groups("reset-offsets", "billing", "--to-earliest", "--topic", "orders:0", "--execute"))
                .isZero();
        assertThat(out.toString()).contains("Committed new offsets of 1 partition for group billing.");
        assertThat(committed("billing")).containsEntry(ORDERS_0, 0L).containsEntry(ORDERS_1, 5L);
    }

    @Test
    void resetMovesOffsetsByEachTargetWithinTheLog() throws Exception {
        commit("billing", Map.of(ORDERS_0, 4L));

        assertThat(reset("--to-latest")).isEqualTo(10);
        assertThat(reset("--to-offset", "3")).isEqualTo(3);
        assertThat(reset("--to-offset", "100")).as("clamped to the log end").isEqualTo(10);
        assertThat(reset("--shift-by", "-4")).isEqualTo(6);
        assertThat(reset("--shift-by", "-40")).as("clamped to the log start").isZero();
        assertThat(reset("--to-datetime", Instant.ofEpochMilli(T0 + 7000).toString()))
                .isEqualTo(7);
        assertThat(reset("--to-datetime", "2023-11-14T22:13:26.500Z"))
                .as("T0 + 6.5 s")
                .isEqualTo(7);
        assertThat(reset("--to-datetime", Instant.ofEpochMilli(T0 + 9500).toString()))
                .as("after the last record: the log end")
                .isEqualTo(10);

        assertThat(groups("reset-offsets", "fresh", "--to-earliest", "--topic", "orders", "--execute"))
                .isZero();
        assertThat(committed("fresh")).containsExactlyInAnyOrderEntriesOf(Map.of(ORDERS_0, 0L, ORDERS_1, 0L));
    }

    @Test
    void resetRefusesPartitionsWithoutOffsets() {
        assertThat(groups("reset-offsets", "billing", "--to-earliest")).isEqualTo(1);
        assertThat(err.toString())
                .contains("group 'billing' has no committed offsets; name the partitions with --topic");

        assertThat(groups("reset-offsets", "billing", "--shift-by", "1", "--topic", "orders:0"))
                .isEqualTo(1);
        assertThat(err.toString()).contains("--shift-by needs a committed offset");
    }

    @Test
    void deletesGroupsWithoutMembers() throws Exception {
        commit("billing", Map.of(ORDERS_0, 4L));

        assertThat(groups("delete", "billing")).isZero();
        assertThat(out.toString()).contains("Deleted group billing.");
        assertThat(committed("billing")).isEmpty();

        assertThat(groups("delete", "billing")).isEqualTo(1);
        assertThat(err.toString()).startsWith("floe groups delete: group 'billing' does not exist");
    }

    @Test
    void describingAnUnknownGroupFailsWithOneLine() {
        assertThat(groups("describe", "missing")).isEqualTo(1);
        assertThat(err.toString())
                .startsWith("floe groups describe: group 'missing' does not exist")
                .hasLineCount(1);
    }

    /** Runs {@code floe groups ARGS --bootstrap ...} with fresh output buffers. */
    private int groups(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setOut(new PrintWriter(out, true));
        floe.setErr(new PrintWriter(err, true));
        String[] command = new String[args.length + 3];
        command[0] = "groups";
        System.arraycopy(args, 0, command, 1, args.length);
        command[args.length + 1] = "--bootstrap";
        command[args.length + 2] = bootstrap();
        return floe.execute(command);
    }

    /** Resets billing's offset of orders-0 with {@code target} and returns the committed result. */
    private long reset(String... target) throws Exception {
        String[] args = new String[target.length + 5];
        args[0] = "reset-offsets";
        args[1] = "billing";
        System.arraycopy(target, 0, args, 2, target.length);
        args[target.length + 2] = "--topic";
        args[target.length + 3] = "orders:0";
        args[target.length + 4] = "--execute";
        assertThat(groups(args)).as(err.toString()).isZero();
        return committed("billing").get(ORDERS_0);
    }

    private void commit(String group, Map<TopicPartition, Long> offsets) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> commits = new java.util.HashMap<>();
        offsets.forEach((partition, offset) -> commits.put(partition, new OffsetAndMetadata(offset)));
        admin.alterConsumerGroupOffsets(group, commits).all().get();
    }

    private Map<TopicPartition, Long> committed(String group) throws Exception {
        Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
        admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get()
                .forEach((partition, offset) -> offsets.put(partition, offset.offset()));
        return offsets;
    }

    /** Records with timestamps T0, T0 + 1000, ... so --to-datetime finds them by second. */
    private void produce(TopicPartition partition, int count) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(), ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(
                        partition.topic(), partition.partition(), T0 + i * 1000L, "k" + i, "v" + i));
            }
            producer.flush();
        }
    }

    private KafkaConsumer<String, String> consumer(String group) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        group,
                        ConsumerConfig.CLIENT_ID_CONFIG,
                        "groups-test-client",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new StringDeserializer(),
                new StringDeserializer());
    }

    private static void pollUntilAssigned(KafkaConsumer<String, String> consumer, int partitions) {
        long deadline = System.currentTimeMillis() + 60_000;
        while (consumer.assignment().size() < partitions && System.currentTimeMillis() < deadline) {
            consumer.poll(Duration.ofMillis(100));
        }
        assertThat(consumer.assignment()).hasSize(partitions);
    }

    private String bootstrap() {
        return "127.0.0.1:" + server.port();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
