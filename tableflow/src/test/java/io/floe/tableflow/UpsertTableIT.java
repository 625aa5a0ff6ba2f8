package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tableflow.table.TableCatalog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upsert table ({@code floe.tableflow.mode=upsert}) of a keyed topic through many rounds of
 * inserts, updates and tombstones, and a restart that rebuilds the key index from the table: after
 * each round the table holds exactly the newest value of every key the log implies (computed here
 * from the produced records in each partition's offset order), one row per key, with the replaced
 * rows hidden by deletion vectors and compacted away (every round here replaces far more than a
 * tenth of the rows, so a compaction follows most rounds).
 */
class UpsertTableIT {

    private static final Duration CATCH_UP = Duration.ofSeconds(60);
    private static final String TOPIC = "accounts";
    private static final int PARTITIONS = 3;
    private static final int KEYS = 60;
    private static final String SCHEMA = """
            {"type": "object",
             "properties": {"id": {"type": "integer"}, "balance": {"type": "integer"}},
             "required": ["id", "balance"]}""";

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private Admin admin;
    private final Random random = new Random(19);
    /** The produced records of each partition by offset: key, then value or null for a tombstone. */
    private final Map<Integer, TreeMap<Long, String[]>> produced = new HashMap<>();

    @BeforeEach
    void start() throws Exception {
        floe = new TableflowHarness(dataDir).startTableflow(dataDir.resolve("spool"));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()));
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)
                        .configs(Map.of(
                                "floe.tableflow.enabled", "true",
                                "floe.tableflow.mode", "upsert",
                                "floe.tableflow.format", "json",
                                "floe.tableflow.schema", SCHEMA,
                                "floe.tableflow.commit.interval.ms", "200"))))
                .all()
                .get();
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        floe.close();
    }

    @Test
    void theTableHoldsTheNewestRowOfEveryKeyThroughUpdatesTombstonesAndARestart() throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int round = 0; round < 6; round++) {
                produce(producer, 150, round == 0 ? 0.0 : 0.15);
                assertNewestRowPerKey(floe.awaitCaughtUp(TOPIC, CATCH_UP));
            }
            floe.restartTableflow(dataDir.resolve("spool"));
            for (int round = 0; round < 3; round++) {
                produce(producer, 150, 0.2);
                assertNewestRowPerKey(floe.awaitCaughtUp(TOPIC, CATCH_UP));
            }
        }
        Table table = floe.tables.load(TOPIC).orElseThrow();
        assertThat(table.properties()).containsEntry(TableCatalog.MODE_PROPERTY, "upsert");
        assertThat(((HasTableOperations) table).operations().current().formatVersion())
                .as("deletion vectors need format version 3")
                .isEqualTo(3);
        List<Snapshot> history = new ArrayList<>();
        table.snapshots().forEach(history::add);
        assertThat(history)
                .as("rounds hide replaced rows with deletion vectors")
                .anyMatch(snapshot -> Long.parseLong(snapshot.summary().getOrDefault("added-dvs", "0")) > 0);
        assertThat(history)
                .as("compactions rewrite files without their deleted rows and drop the deletion vectors")
                .anyMatch(snapshot -> snapshot.summary().containsKey("floe.compacted-at")
                        && Long.parseLong(snapshot.summary().getOrDefault("removed-dvs", "0")) > 0);
        List<DeleteFile> deletes = deleteFiles(table);
        assertThat(deletes).allSatisfy(delete -> {
            assertThat(delete.format()).isEqualTo(FileFormat.PUFFIN);
            assertThat(delete.referencedDataFile()).isNotNull();
        });
        assertThat(deletes.stream().map(DeleteFile::referencedDataFile).distinct())
                .as("one deletion vector per data file")
                .hasSize(deletes.size());
    }

    @Test
    void aRecordWithoutAKeyIsADeadLetter() throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(TOPIC, 0, null, value(1, 10))).get();
            producer.send(new ProducerRecord<>(TOPIC, 0, "a".getBytes(StandardCharsets.UTF_8), value(2, 20)))
                    .get();
        }
        Table table = floe.awaitCaughtUp(TOPIC, CATCH_UP);
        assertThat(TableflowHarness.rows(table))
                .singleElement()
                .satisfies(row -> assertThat(row.getField("id")).isEqualTo(2L));
        Table dead = floe.tables.loadDeadLetters(TOPIC).orElseThrow();
        assertThat(TableflowHarness.rows(dead))
                .singleElement()
                .satisfies(
                        row -> assertThat((String) row.getField("floe_error")).contains("no key"));
    }

    /** {@code count} records of random keys, each a tombstone with probability {@code tombstones}. */
    private void produce(KafkaProducer<byte[], byte[]> producer, int count, double tombstones)
            throws ExecutionException, InterruptedException {
        List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
        List<String[]> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = "key-" + random.nextInt(KEYS);
            long balance = random.nextInt(1_000_000);
            String value = random.nextDouble() < tombstones ? null : Long.toString(balance);
            byte[] bytes = value == null ? null : value(Long.parseLong(key.substring(4)), balance);
            sent.add(producer.send(new ProducerRecord<>(TOPIC, key.getBytes(StandardCharsets.UTF_8), bytes)));
            records.add(new String[] {key, value});
        }
        for (int i = 0; i < sent.size(); i++) {
            RecordMetadata metadata = sent.get(i).get();
            produced.computeIfAbsent(metadata.partition(), p -> new TreeMap<>()).put(metadata.offset(), records.get(i));
        }
    }

    /** The newest balance of every live key, by each partition's offset order. */
    private Map<String, Long> expected() {
        Map<String, Long> newest = new TreeMap<>();
        for (TreeMap<Long, String[]> partition : produced.values()) {
            for (String[] record : partition.values()) {
                if (record[1] == null) {
                    newest.remove(record[0]);
                } else {
                    newest.put(record[0], Long.parseLong(record[1]));
                }
            }
        }
        return newest;
    }

    private void assertNewestRowPerKey(Table table) {
        List<Record> rows = TableflowHarness.rows(table);
        Map<String, Long> actual = new TreeMap<>();
        for (Record row : rows) {
            ByteBuffer key = (ByteBuffer) row.getField("kafka_key");
            String name = StandardCharsets.UTF_8.decode(key.duplicate()).toString();
            assertThat(actual.put(name, (Long) row.getField("balance")))
                    .as("a second row of key %s", name)
                    .isNull();
        }
        assertThat(actual).isEqualTo(expected());
    }

    private static List<DeleteFile> deleteFiles(Table table) throws Exception {
        List<DeleteFile> deletes = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> deletes.addAll(task.deletes()));
        }
        return deletes;
    }

    private static byte[] value(long id, long balance) {
        return ("{\"id\": " + id + ", \"balance\": " + balance + "}").getBytes(StandardCharsets.UTF_8);
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
