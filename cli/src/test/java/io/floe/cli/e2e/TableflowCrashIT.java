package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.LocalObjectStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent materializing a table is killed (SIGKILL) at random moments while records arrive, and
 * restarted; afterwards the table holds exactly the topic's records, each once: the job resumed from
 * the table's own watermark every time, whatever step the kill interrupted.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TableflowCrashIT {

    private static final String TOPIC = "tf";
    private static final int PARTITIONS = 3;
    private static final int KILLS = 6;

    @TempDir
    Path dataDir;

    private AgentProcess agent;

    @AfterEach
    void killLeftovers() {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void killingTheAgentAtRandomMomentsNeverDuplicatesOrSkipsARow() throws Exception {
        long seed = Long.getLong("tableflow.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        int port = InProcessFloe.freePort();
        String bootstrap = "127.0.0.1:" + port;
        agent = startAgent(port);
        try (Admin admin = Records.admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)
                            .configs(Map.of(
                                    "floe.tableflow.enabled", "true", "floe.tableflow.commit.interval.ms", "100"))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }

        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger sent = new AtomicInteger();
        Thread producerThread = new Thread(() -> produceUntilStopped(bootstrap, producing, sent), "test-producer");
        producerThread.start();
        for (int kill = 0; kill < KILLS; kill++) {
            awaitReady(bootstrap);
            // The moment of each kill is random (seeded): whatever step of a round it lands in.
            Thread.sleep(500 + random.nextInt(2500));
            agent.kill();
            agent = startAgent(port);
        }
        awaitReady(bootstrap);
        producing.set(false);
        producerThread.join();

        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(TOPIC, p))
                .toList();
        List<ConsumerRecord<byte[], byte[]>> topic = Records.readToEnd(bootstrap, partitions, Duration.ofMinutes(1));
        assertThat(topic).as("records in the topic (seed %d)", seed).hasSizeGreaterThan(1_000);
        Map<String, String> expected = new HashMap<>();
        topic.forEach(r -> expected.put(r.partition() + "/" + r.offset(), Records.text(r.value())));

        List<Record> rows = awaitTable(expected.size(), Duration.ofMinutes(2));
        Map<String, String> actual = new HashMap<>();
        List<String> duplicates = new ArrayList<>();
        for (Record row : rows) {
            String position = row.getField(Rows.PARTITION) + "/" + row.getField(Rows.OFFSET);
            String value = StandardCharsets.UTF_8
                    .decode(((ByteBuffer) row.getField("value")).duplicate())
                    .toString();
            if (actual.put(position, value) != null) {
                duplicates.add(position);
            }
        }
        assertThat(duplicates).as("rows written twice (seed %d)", seed).isEmpty();
        assertThat(actual).as("table rows versus topic records (seed %d)", seed).isEqualTo(expected);
    }

    private static void produceUntilStopped(String bootstrap, AtomicBoolean producing, AtomicInteger sent) {
        try (KafkaProducer<byte[], byte[]> producer = Records.producer(
                bootstrap,
                Map.of(
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                        10_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                        3_000,
                        ProducerConfig.MAX_BLOCK_MS_CONFIG,
                        10_000))) {
            while (producing.get()) {
                int i = sent.getAndIncrement();
                try {
                    producer.send(new ProducerRecord<>(TOPIC, Records.bytes("k" + i), Records.bytes("value-" + i)));
                    if (i % 200 == 0) {
                        producer.flush();
                    }
                } catch (RuntimeException e) {
                    // A send that timed out while the agent was down: the topic itself is the expectation.
                }
            }
        }
    }

    /** Opens the catalog the agent writes (the SQLite file is shared safely) and waits for the table to hold {@code count} rows. */
    private List<Record> awaitTable(int count, Duration timeout) throws Exception {
        try (LocalObjectStore objects = new LocalObjectStore(dataDir.resolve("objects"))) {
            ObjectLocations locations =
                    new ObjectLocations("file:" + dataDir.resolve("objects").toAbsolutePath());
            try (TableCatalog tables = new TableCatalog(
                    IcebergCatalogs.jdbc(
                            "jdbc:sqlite:" + dataDir.resolve("metadata.db").toAbsolutePath(),
                            null,
                            null,
                            locations.root() + "/tables",
                            new ObjectStoreFileIO(objects, locations, dataDir.resolve("test-spool"))),
                    "floe")) {
                Instant deadline = Instant.now().plus(timeout);
                while (true) {
                    Optional<Table> table = tables.load(TOPIC);
                    long materialized = table.flatMap(Watermark::of)
                            .map(mark -> mark.nextOffsets().values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum())
                            .orElse(0L);
                    if (materialized >= count || Instant.now().isAfter(deadline)) {
                        return table.map(TableflowCrashIT::rows).orElse(List.of());
                    }
                    Thread.sleep(100);
                }
            }
        }
    }

    private static List<Record> rows(Table table) {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return rows;
    }

    private static void awaitReady(String bootstrap) throws Exception {
        try (Admin admin = Records.admin(bootstrap)) {
            // The admin client retries connecting until its timeout; no fixed sleep.
            admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
        }
    }

    private AgentProcess startAgent(int port) throws IOException {
        return AgentProcess.start(
                List.of("-Xmx512m"),
                List.of(
                        "--listen",
                        "127.0.0.1:" + port,
                        "--http-listen",
                        "127.0.0.1:" + InProcessFloe.freePort(),
                        "--data-dir",
                        dataDir.toString(),
                        // A restarted agent takes the dead one's table lease within a second.
                        "--tableflow-lease-ms",
                        "1000",
                        "--flush-interval-ms",
                        "10"),
                Map.of(),
                dataDir.resolveSibling(dataDir.getFileName() + "-agent.log"));
    }
}
