package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.cli.Floe;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code floe tables changes} and {@code GET /tables/v1/{topic}/changes} against a whole agent in-process:
 * an upsert table of a keyed topic with inserts, updates, deletes and a dead letter, asked for every
 * change, the net change per key and the inserts, as JSON lines on standard output, in a file and as
 * Parquet; answers compared with what the produced records imply; then an incremental query from where the
 * first ended, and the refusals.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TableChangesIT {

    private static final String TOPIC = "accounts";
    private static final String SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"balance\":{\"type\":\"integer\"}}," + "\"required\":[\"balance\"]}";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CHANGES = "accounts.changes";

    @TempDir
    Path dataDir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    /** Produced records: partition, offset → key (null: none) and balance (null: tombstone, -1: bad value). */
    private final Map<Integer, TreeMap<Long, Object[]>> produced = new HashMap<>();

    @Test
    void theCliAndTheHttpEndpointAnswerWhatTheLogImplies() throws Exception {
        int port = freePort();
        try (AgentRuntime runtime = AgentRuntime.start(settings(port), Clock.systemUTC());
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            String bootstrap = "127.0.0.1:" + port;
            String http = "127.0.0.1:" + runtime.httpPort();
            assertThat(floe("topics", "create", TOPIC, "--partitions", "2", "--bootstrap", bootstrap))
                    .isZero();
            assertThat(floe(
                            "tables",
                            "enable",
                            TOPIC,
                            "--mode",
                            "upsert",
                            "--format",
                            "json",
                            "--schema",
                            SCHEMA,
                            "--commit-interval-ms",
                            "100",
                            "--changes-topic",
                            CHANGES,
                            "--bootstrap",
                            bootstrap))
                    .as(err.toString())
                    .isZero();
            for (int i = 0; i < 10; i++) {
                send(producer, "k" + i, 100L + i);
            }
            awaitTable(http, ends());
            for (int i = 0; i < 5; i++) {
                send(producer, "k" + i, 200L + i);
            }
            send(producer, "k5", null);
            send(producer, "k6", null);
            send(producer, "k5", 500L);
            send(producer, "k7", -1L); // does not fit the schema: a dead letter, no change
            send(producer, "k99", null); // a delete of a key never seen: no change
            send(producer, "k8", 300L);
            send(producer, "k8", null); // inserted before, updated and deleted here
            send(producer, "k10", 10L);
            send(producer, "k10", null); // inserted and deleted: not in the min delta
            Map<Integer, Long> ends = ends();
            awaitTable(http, ends);

            // Every change, on standard output, in each partition's offset order.
            assertThat(floe("tables", "changes", TOPIC, "--from", "earliest", "--http", http))
                    .as(err.toString())
                    .isZero();
            List<String> full = out.toString().lines().toList();
            assertThat(summary(full)).containsExactlyInAnyOrderElementsOf(expectedFull());
            assertInOffsetOrder(full);
            assertThat(err.toString())
                    .contains(full.size() + " changes of topic accounts from offsets 0:0,1:0 to " + offsets(ends));

            // The net change per key, to a file.
            Path min = dataDir.resolve("min.jsonl");
            assertThat(floe(
                            "tables",
                            "changes",
                            TOPIC,
                            "--from",
                            "earliest",
                            "--kind",
                            "min",
                            "--output",
                            min.toString(),
                            "--http",
                            http))
                    .as(err.toString())
                    .isZero();
            assertThat(summary(Files.readAllLines(min))).containsExactlyInAnyOrderElementsOf(expectedMin());

            // The inserts, as Parquet: the same changes as the JSON lines.
            Path parquet = dataDir.resolve("inserts.parquet");
            assertThat(floe(
                            "tables",
                            "changes",
                            TOPIC,
                            "--from",
                            "earliest",
                            "--kind",
                            "append",
                            "--format",
                            "parquet",
                            "--output",
                            parquet.toString(),
                            "--http",
                            http))
                    .as(err.toString())
                    .isZero();
            assertThat(parquetSummary(parquet))
                    .containsExactlyInAnyOrderElementsOf(expectedFull().stream()
                            .filter(line -> line.startsWith("c "))
                            .toList());

            // The same query over HTTP: the same lines, and the resolved range in the headers.
            HttpResponse<String> response = get(http, "/tables/v1/accounts/changes?from=earliest&kind=full");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/x-ndjson");
            assertThat(response.headers().firstValue("Floe-Changes-To")).hasValue(offsets(ends));
            assertThat(response.body().lines().toList()).isEqualTo(full);

            // Incrementally: from where the last answer ended, only what came since.
            send(producer, "k1", 999L);
            send(producer, "k2", null);
            awaitTable(http, ends());
            assertThat(floe("tables", "changes", TOPIC, "--from", offsets(ends), "--http", http))
                    .as(err.toString())
                    .isZero();
            assertThat(summary(out.toString().lines().toList()))
                    .containsExactlyInAnyOrder("u k1 before=201 after=999", "d k2 before=202 after=null");

            // The change topic the agent publishes through its own listener holds the same changes.
            assertChangeTopic(bootstrap);

            assertRefusals(http, ends);
        }
    }

    /** The change topic, read with read_committed until it holds every change the log implies. */
    private void assertChangeTopic(String bootstrap) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "change-topic-reader");
        List<String> changes = new ArrayList<>();
        Instant deadline = Instant.now().plusSeconds(60);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(CHANGES));
            while (changes.size() < expectedFull().size()) {
                assertThat(Instant.now())
                        .as("the change topic holds %s", expectedFull())
                        .isBefore(deadline);
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.value() != null) {
                        JsonNode event = JSON.readTree(record.value());
                        changes.add(line(
                                new String(record.key(), StandardCharsets.UTF_8),
                                balance(event.get("before")),
                                balance(event.get("after"))));
                    }
                }
            }
        }
        assertThat(changes).containsExactlyInAnyOrderElementsOf(expectedFull());
    }

    private void assertRefusals(String http, Map<Integer, Long> ends) throws Exception {
        HttpResponse<String> malformed = get(http, "/tables/v1/accounts/changes?from=yesterday");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.body()).contains("cannot read the point 'yesterday'");
        HttpResponse<String> beyond = get(http, "/tables/v1/accounts/changes?from=0:0,1:0&to=0:100000,1:0");
        assertThat(beyond.statusCode()).isEqualTo(400);
        assertThat(beyond.body()).contains("offset 100000 of partition 0 is beyond table floe.accounts");
        assertThat(get(http, "/tables/v1/nothing/changes?from=earliest").statusCode())
                .isEqualTo(404);

        assertThat(floe("tables", "changes", TOPIC, "--from", "0:1", "--http", http))
                .isEqualTo(1);
        assertThat(err.toString()).contains("floe tables changes: offsets 0:1 leave out partitions [1]");
        assertThat(floe("tables", "changes", "nothing", "--from", "earliest", "--http", http))
                .isEqualTo(1);
        assertThat(err.toString()).contains("topic nothing has no table floe.nothing");
        assertThat(floe("tables", "changes", TOPIC, "--from", "earliest", "--format", "parquet", "--http", http))
                .isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--format parquet writes a file; give --output FILE");
        String nowhere = "127.0.0.1:" + freePort();
        assertThat(floe("tables", "changes", TOPIC, "--from", "earliest", "--http", nowhere))
                .isEqualTo(1);
        assertThat(err.toString()).contains("cannot reach the agent's HTTP endpoint at http://" + nowhere);
    }

    /** Each produced record's change, replayed per key in offset order: "op key before=B after=A". */
    private List<String> expectedFull() {
        List<String> changes = new ArrayList<>();
        Map<String, Long> rows = new HashMap<>();
        produced.forEach((partition, records) -> records.forEach((offset, record) -> {
            String key = (String) record[0];
            Long balance = (Long) record[1];
            if (key == null || (balance != null && balance < 0)) {
                return; // a dead letter
            }
            Long before = balance == null ? rows.remove(key) : rows.put(key, balance);
            if (before != null || balance != null) {
                changes.add(line(key, before, balance));
            }
        }));
        return changes;
    }

    private List<String> expectedMin() {
        Map<String, Long[]> net = new LinkedHashMap<>();
        for (String change : expectedFull()) {
            String[] parts = change.split(" ");
            Long before = value(parts[2]);
            Long after = value(parts[3]);
            net.computeIfAbsent(parts[1], key -> new Long[] {before, null})[1] = after;
        }
        List<String> lines = new ArrayList<>();
        net.forEach((key, change) -> {
            if (change[0] != null || change[1] != null) {
                lines.add(line(key, change[0], change[1]));
            }
        });
        return lines;
    }

    private static Long value(String field) {
        String text = field.substring(field.indexOf('=') + 1);
        return text.equals("null") ? null : Long.parseLong(text);
    }

    private static String line(String key, Long before, Long after) {
        String op = before == null ? "c" : after == null ? "d" : "u";
        return op + " " + key + " before=" + before + " after=" + after;
    }

    /** JSON lines as "op key before=B after=A". */
    private static List<String> summary(List<String> lines) throws IOException {
        List<String> changes = new ArrayList<>();
        for (String line : lines) {
            JsonNode change = JSON.readTree(line);
            String key = new String(Base64.getDecoder().decode(change.get("key").asText()), StandardCharsets.UTF_8);
            changes.add(line(key, balance(change.get("before")), balance(change.get("after"))));
            assertThat(change.get("snapshot_id").isIntegralNumber()).as(line).isTrue();
            assertThat(Instant.parse(change.get("commit_timestamp").asText())).isBefore(Instant.now());
        }
        return changes;
    }

    private static Long balance(JsonNode row) {
        return row.isNull() ? null : row.get("balance").asLong();
    }

    private static void assertInOffsetOrder(List<String> lines) throws IOException {
        Map<Integer, Long> last = new HashMap<>();
        for (String line : lines) {
            JsonNode change = JSON.readTree(line);
            long offset = change.get("offset").asLong();
            Long previous = last.put(change.get("partition").asInt(), offset);
            assertThat(previous == null || previous < offset).as(line).isTrue();
        }
    }

    /** The Parquet answer's rows as "op key before=B after=A". */
    private static List<String> parquetSummary(Path file) throws IOException {
        org.apache.iceberg.Schema schema;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            schema = ParquetSchemaUtil.convert(reader.getFileMetaData().getSchema());
        }
        List<String> changes = new ArrayList<>();
        try (CloseableIterable<Record> rows = Parquet.read(org.apache.iceberg.Files.localInput(file.toFile()))
                .project(schema)
                .createReaderFunc(type -> GenericParquetReaders.buildReader(schema, type))
                .build()) {
            for (Record row : rows) {
                java.nio.ByteBuffer key = (java.nio.ByteBuffer) row.getField("key");
                Record before = (Record) row.getField("before");
                Record after = (Record) row.getField("after");
                changes.add(line(
                        StandardCharsets.UTF_8.decode(key.duplicate()).toString(),
                        before == null ? null : (Long) before.getField("balance"),
                        after == null ? null : (Long) after.getField("balance")));
            }
        }
        return changes;
    }

    /** Waits until a change query's end reaches {@code ends} (the table holds every record produced). */
    private void awaitTable(String http, Map<Integer, Long> ends) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        String target = offsets(ends);
        while (true) {
            HttpResponse<String> response = get(http, "/tables/v1/accounts/changes?from=latest");
            if (response.statusCode() == 200
                    && response.headers()
                            .firstValue("Floe-Changes-To")
                            .orElse("")
                            .equals(target)) {
                return;
            }
            assertThat(Instant.now())
                    .as("table reached %s; last answer %s", target, response.body())
                    .isBefore(deadline);
            Thread.sleep(100);
        }
    }

    private void send(KafkaProducer<byte[], byte[]> producer, String key, Long balance) throws Exception {
        byte[] value = balance == null
                ? null
                : (balance < 0 ? "{\"balance\": \"none\"}" : "{\"balance\": " + balance + "}")
                        .getBytes(StandardCharsets.UTF_8);
        RecordMetadata sent = producer.send(new ProducerRecord<>(TOPIC, key.getBytes(StandardCharsets.UTF_8), value))
                .get();
        produced.computeIfAbsent(sent.partition(), p -> new TreeMap<>())
                .put(sent.offset(), new Object[] {key, balance});
    }

    /** The next offset of each partition after what was produced. */
    private Map<Integer, Long> ends() {
        Map<Integer, Long> ends = new TreeMap<>(Map.of(0, 0L, 1, 0L));
        produced.forEach((partition, records) -> ends.put(partition, records.lastKey() + 1));
        return ends;
    }

    private static String offsets(Map<Integer, Long> ends) {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(ends)
                .forEach((partition, next) -> text.append(text.length() == 0 ? "" : ",")
                        .append(partition)
                        .append(':')
                        .append(next));
        return text.toString();
    }

    private static HttpResponse<String> get(String http, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://" + http + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private int floe(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setOut(new PrintWriter(out, true));
        floe.setErr(new PrintWriter(err, true));
        return floe.execute(args);
    }

    private AgentSettings settings(int port) {
        CommandLine floe = Floe.commandLine(Map.of());
        String[] args = {
            "agent",
            "--listen",
            "127.0.0.1:" + port,
            "--http-listen",
            "127.0.0.1:0",
            "--data-dir",
            dataDir.toString(),
            "--flush-interval-ms",
            "5"
        };
        CommandLine.ParseResult parsed = floe.parseArgs(args);
        AgentCommand command = parsed.subcommand().commandSpec().commandLine().getCommand();
        return command.settings();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
