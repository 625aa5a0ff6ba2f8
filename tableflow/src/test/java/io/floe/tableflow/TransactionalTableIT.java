package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table of a topic that transactional producers write: only committed transactions' records
 * reach it, never an aborted one, and an open transaction holds the table at its first record (the
 * last stable offset) until it ends, with later plain records waiting behind it as a read-committed
 * consumer's would.
 */
class TransactionalTableIT {

    private static final Duration CATCH_UP = Duration.ofSeconds(60);
    private static final String TOPIC = "payments";
    private static final int PARTITIONS = 2;
    private static final String SCHEMA = """
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}""";

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        floe = new TableflowHarness(dataDir).startTableflow(dataDir.resolve("spool"));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()));
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)
                        .configs(Map.of(
                                "floe.tableflow.enabled", "true",
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
    void onlyCommittedTransactionsReachTheTableAndAnOpenOneHoldsItBack() throws Exception {
        try (KafkaProducer<byte[], byte[]> transactional =
                        producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "payer"));
                KafkaProducer<byte[], byte[]> plain = producer(Map.of())) {
            transactional.initTransactions();
            transactional.beginTransaction();
            send(transactional, 0, 100);
            transactional.commitTransaction();
            transactional.beginTransaction();
            send(transactional, 100, 200);
            transactional.flush(); // stored, then aborted: the producer would otherwise drop them unsent
            transactional.abortTransaction();
            transactional.beginTransaction();
            send(transactional, 200, 300);
            transactional.flush();
            send(plain, 1000, 1010);
            plain.flush();

            assertThat(ids(floe.awaitCaughtUp(TOPIC, CATCH_UP))).isEqualTo(range(0, 100));

            transactional.commitTransaction();
        }
        Set<Long> expected = new TreeSet<>(range(0, 100));
        expected.addAll(range(200, 300));
        expected.addAll(range(1000, 1010));
        assertThat(ids(floe.awaitCaughtUp(TOPIC, CATCH_UP))).isEqualTo(expected);
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, long from, long to) {
        for (long id = from; id < to; id++) {
            producer.send(new ProducerRecord<>(
                    TOPIC, (int) (id % PARTITIONS), null, ("{\"id\": " + id + "}").getBytes(StandardCharsets.UTF_8)));
        }
    }

    private static Set<Long> ids(org.apache.iceberg.Table table) {
        List<Record> rows = TableflowHarness.rows(table);
        Set<Long> ids =
                rows.stream().map(row -> (Long) row.getField("id")).collect(Collectors.toCollection(TreeSet::new));
        assertThat(ids).as("one row per record").hasSize(rows.size());
        return ids;
    }

    private static Set<Long> range(long from, long to) {
        return LongStream.range(from, to).boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    private KafkaProducer<byte[], byte[]> producer(Map<String, String> overrides) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        properties.putAll(overrides);
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
