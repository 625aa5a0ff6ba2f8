package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.floe.cli.Floe;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code floe agent --objects s3://...} in-process against S3Proxy: kafka-clients produce and
 * consume through it, the segments land in the bucket under the prefix, the maintenance jobs run as
 * a stage, and neither the start-up line nor any other log line shows the secret key.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AgentOnS3IT {

    private static final String BUCKET = "floe-data";
    private static final int RECORDS = 200;

    @TempDir
    static Path s3Root;

    private static InProcessS3 s3;

    @TempDir
    Path dataDir;

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger floeLogger = (Logger) org.slf4j.LoggerFactory.getLogger("io.floe");
    private Level floeLevel;

    @BeforeAll
    static void startS3() throws Exception {
        s3 = new InProcessS3(s3Root);
        s3.createBucket(BUCKET);
    }

    @AfterAll
    static void stopS3() {
        s3.close();
    }

    @BeforeEach
    void captureLogs() {
        floeLevel = floeLogger.getLevel();
        floeLogger.setLevel(Level.INFO);
        floeLogger.setAdditive(false); // captured here, kept off the console
        logs.start();
        floeLogger.addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        floeLogger.detachAppender(logs);
        floeLogger.setAdditive(true);
        floeLogger.setLevel(floeLevel);
    }

    @Test
    void producesAndConsumesWithSegmentsInTheBucket() throws Exception {
        int port = freePort();
        AgentSettings settings = settings(
                Map.of("FLOE_S3_SECRET_ACCESS_KEY", InProcessS3.SECRET_KEY),
                "--listen",
                "127.0.0.1:" + port,
                "--http-listen",
                "127.0.0.1:0",
                "--data-dir",
                dataDir.toString(),
                "--flush-interval-ms",
                "5",
                "--objects",
                "s3://" + BUCKET + "/cluster-1",
                "--s3-endpoint",
                s3.endpoint().toString(),
                "--s3-path-style",
                "true",
                "--s3-access-key-id",
                InProcessS3.ACCESS_KEY);
        String bootstrap = "127.0.0.1:" + port;

        try (AgentRuntime runtime = AgentRuntime.start(settings, Clock.systemUTC())) {
            createTopic(bootstrap, "clicks", 3);
            List<String> sent = produce(bootstrap, "clicks");
            List<String> read = consume(bootstrap, "clicks", 3);

            assertThat(read).containsExactlyInAnyOrderElementsOf(sent);
            assertThat(metrics(runtime)).contains("floe_storage_objects");
        }

        try (ObjectStore bucket =
                Backends.objectStore("s3://" + BUCKET + "/cluster-1", settings.s3(), Clock.systemUTC())) {
            List<ObjectInfo> segments = bucket.list("segments/");
            assertThat(segments).isNotEmpty();
            assertThat(segments)
                    .allSatisfy(info -> assertThat(info.key().value()).endsWith(".seg"));
        }
        String started = logLines().stream()
                .filter(line -> line.startsWith("Floe agent started"))
                .findFirst()
                .orElseThrow();
        assertThat(started)
                .contains(
                        "objects=s3://" + BUCKET + "/cluster-1",
                        "s3-endpoint=" + s3.endpoint(),
                        "s3-access-key-id=" + InProcessS3.ACCESS_KEY,
                        "s3-secret-access-key=****",
                        "maintenance=true");
        assertThat(String.join("\n", logLines()))
                .doesNotContain(InProcessS3.SECRET_KEY)
                .containsSubsequence(
                        "Stopping Kafka listener",
                        "Stopping maintenance",
                        "Stopping agent",
                        "Stopping object store s3://" + BUCKET + "/cluster-1",
                        "Stopping metadata store");
    }

    @Test
    void anEndpointWhereNothingListensFailsTheStartWithOneLine() throws IOException {
        URI nowhere = URI.create("http://127.0.0.1:" + freePort());
        StringWriter err = new StringWriter();
        CommandLine floe = Floe.commandLine(
                Map.of("FLOE_S3_ACCESS_KEY_ID", "id", "FLOE_S3_SECRET_ACCESS_KEY", InProcessS3.SECRET_KEY));
        floe.setErr(new PrintWriter(err, true));

        int exitCode = floe.execute(
                "agent",
                "--listen",
                "127.0.0.1:" + freePort(),
                "--http-listen",
                "127.0.0.1:0",
                "--data-dir",
                dataDir.toString(),
                "--objects",
                "s3://" + BUCKET,
                "--s3-endpoint",
                nowhere.toString(),
                "--s3-path-style",
                "true");

        assertThat(exitCode).isEqualTo(1);
        assertThat(err.toString())
                .startsWith("floe agent: cannot start object store s3://" + BUCKET
                        + ": cannot reach the object store at endpoint " + nowhere + " to check bucket " + BUCKET)
                .hasLineCount(1)
                .doesNotContain(InProcessS3.SECRET_KEY);
    }

    @Test
    void aMissingBucketFailsTheStartWithOneLine() throws IOException {
        StringWriter err = new StringWriter();
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setErr(new PrintWriter(err, true));

        int exitCode = floe.execute(
                "agent",
                "--listen",
                "127.0.0.1:" + freePort(),
                "--http-listen",
                "127.0.0.1:0",
                "--data-dir",
                dataDir.toString(),
                "--objects",
                "s3://no-such-bucket/x",
                "--s3-endpoint",
                s3.endpoint().toString(),
                "--s3-path-style",
                "true",
                "--s3-access-key-id",
                InProcessS3.ACCESS_KEY,
                "--s3-secret-access-key",
                InProcessS3.SECRET_KEY);

        assertThat(exitCode).isEqualTo(1);
        assertThat(err.toString())
                .startsWith("floe agent: cannot start object store s3://no-such-bucket/x: bucket"
                        + " no-such-bucket does not exist at endpoint " + s3.endpoint())
                .hasLineCount(1);
    }

    private List<String> logLines() {
        return logs.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    private static AgentSettings settings(Map<String, String> env, String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "agent";
        System.arraycopy(args, 0, command, 1, args.length);
        CommandLine.ParseResult parsed = Floe.commandLine(env).parseArgs(command);
        AgentCommand agent = parsed.subcommand().commandSpec().commandLine().getCommand();
        return agent.settings();
    }

    private static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private static List<String> produce(String bootstrap, String topic) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        List<String> sent = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < RECORDS; i++) {
                String value = "click-" + i;
                acks.add(producer.send(new ProducerRecord<>(topic, "user-" + (i % 7), value)));
                sent.add(value);
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
        return sent;
    }

    private static List<String> consume(String bootstrap, String topic, int partitions) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<TopicPartition> assigned = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assigned.add(new TopicPartition(topic, p));
        }
        List<String> read = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            while (read.size() < RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    read.add(record.value());
                }
            }
        }
        return read;
    }

    private static String metrics(AgentRuntime runtime) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runtime.httpPort() + "/metrics"))
                .build();
        return HttpClient.newHttpClient()
                .send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
                .body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
