package io.floe.engines;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark with Iceberg's Spark runtime reads a table a running agent materialized, through the agent's
 * Iceberg REST catalog, configured as the README tells users to: every row has the values that were
 * produced, and a filter on the record timestamp (the table's day partitioning) selects the right rows.
 * Spark's Iceberg runtime refuses tables whose columns use the names of Iceberg's metadata columns,
 * which Iceberg's Java reader does not check; only an engine like this one catches such a layout. The
 * same table, cross-published as Delta Lake, reads the same rows through delta-spark, and so does an
 * upsert table, whose Delta log shares Iceberg's deletion vectors. Two lifecycle tests ({@link Lifecycle})
 * read an append and an upsert table after every step of their life with Spark's Iceberg runtime,
 * delta-spark and Delta Kernel. One Spark session serves all tests: its start is most of their cost.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SparkReadIT {

    private static final String TOPIC = "orders";
    private static final int RECORDS = 60;
    /** Timestamps 37 minutes apart from here span three UTC days, so the table has three day partitions. */
    private static final Instant FIRST_TIMESTAMP = Instant.parse("2026-11-28T22:00:00Z");
    private static final String SCHEMA = """
            {"type": "object",
             "properties": {"id": {"type": "integer"}, "customer": {"type": "string"}, "amount": {"type": "number"}},
             "required": ["id", "customer"]}""";

    private static final String UPSERT_TOPIC = "accounts";
    private static final int ACCOUNTS = 200;
    private static final String ACCOUNT_SCHEMA = """
            {"type": "object",
             "properties": {"id": {"type": "integer"}, "balance": {"type": "integer"}},
             "required": ["id", "balance"]}""";

    @TempDir
    static Path dataDir;

    private static AgentProcess agent;
    private static String bootstrap;
    private static String catalogUri;
    private static SparkSession spark;
    private static DeltaReader kernel;

    @BeforeAll
    static void start() throws Exception {
        agent = AgentProcess.start(Path.of(System.getProperty("floe.jar", "../cli/target/floe.jar")),
                dataDir.resolve("floe"), dataDir.resolveSibling(dataDir.getFileName() + "-agent.log"));
        bootstrap = agent.bootstrap();
        catalogUri = agent.catalogUri();

        spark = SparkSession.builder()
                .master("local[2]")
                .appName("floe-spark-read")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.datetime.java8API.enabled", "true")
                .config("spark.sql.warehouse.dir", dataDir.resolve("spark-warehouse").toUri().toString())
                // What README.md tells users to set, and nothing else.
                .config("spark.sql.catalog.floe", "org.apache.iceberg.spark.SparkCatalog")
                .config("spark.sql.catalog.floe.type", "rest")
                .config("spark.sql.catalog.floe.uri", catalogUri)
                // What Delta Lake's quickstart sets, for the Delta reads.
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                // Delta rebuilds a table's state from its log in 50 tasks by default: 2 suffice for these tables.
                .config("spark.databricks.delta.snapshotPartitions", "2")
                .getOrCreate();
        kernel = DeltaReader.kernel();
    }

    @AfterAll
    static void stop() throws Exception {
        if (spark != null) {
            spark.stop();
        }
        if (agent != null) {
            agent.stop();
        }
    }

    /**
     * An append table through its lifecycle: rounds of appends, a grown schema, the agent killed with a
     * round in flight and started again, a compaction and snapshot expiry. After each step Spark's
     * Iceberg read, delta-spark and Delta Kernel return by value every produced record once, and
     * nothing else. (Deletes do not apply: an append table keeps a row per record.)
     */
    @Test
    void anAppendTableReadsTheSameInEveryEngineThroughItsLifecycle() throws Exception {
        try (Lifecycle table = Lifecycle.create(new AppendWorkload(), agent, spark, kernel)) {
            table.appends(2);
            table.growSchema();
            table.crashMidRound();
            table.compaction();
            table.snapshotExpiry();
        }
    }

    /**
     * An upsert table through its lifecycle: inserts and updates, a grown schema, tombstones, the agent
     * killed with a round in flight and started again, a compaction of the files whose rows deletion
     * vectors hide, and snapshot expiry. After each step every engine returns by value the newest row
     * of each key that the produced records imply.
     */
    @Test
    void anUpsertTableReadsTheSameInEveryEngineThroughItsLifecycle() throws Exception {
        UpsertWorkload workload = new UpsertWorkload();
        try (Lifecycle table = Lifecycle.create(workload, agent, spark, kernel)) {
            table.appends(2);
            table.growSchema();
            table.deletes(workload.deletes());
            table.crashMidRound();
            table.compaction();
            table.snapshotExpiry();
        }
    }

    @Test
    void sparkReadsEveryRowOfATableWithTheValuesProduced() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1).configs(Map.of(
                    "floe.tableflow.enabled", "true", "floe.tableflow.format", "json",
                    "floe.tableflow.schema", SCHEMA, "floe.tableflow.partitioning", "day",
                    "floe.tableflow.commit.interval.ms", "200", "floe.tableflow.delta.enabled", "true"))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        Map<String, String> produced = produce();
        awaitTableRows(TOPIC, RECORDS, Duration.ofSeconds(90));

        // SELECT *, as a user's first look at a table does; rows are read by column name.
        List<Row> rows = spark.table("floe.floe." + TOPIC).collectAsList();
        assertThat(rows).hasSize(RECORDS);
        assertThat(described(rows)).isEqualTo(produced);

        // The day partitioning is on the record timestamp: a filter on it reads the rows of its days only.
        Instant from = Instant.parse("2026-11-30T00:00:00Z");
        long expected = produced.values().stream().filter(row -> !Instant.parse(row.split(" ")[0]).isBefore(from))
                .count();
        assertThat(expected).isBetween(1L, RECORDS - 1L);
        Row filtered = spark.sql("SELECT count(*) FROM floe.floe." + TOPIC
                + " WHERE kafka_timestamp >= TIMESTAMP '2026-11-30 00:00:00'").first();
        assertThat(filtered.getLong(0)).isEqualTo(expected);
        Row partitions = spark.sql("SELECT count(DISTINCT partition) FROM floe.floe." + TOPIC + ".files").first();
        assertThat(partitions.getLong(0)).as("day partitions of the table's files").isEqualTo(3);

        // The Delta log beside the Iceberg metadata: the same rows, by value, through delta-spark.
        String location = tableLocation(TOPIC);
        List<Row> deltaRows = awaitDeltaRows(location, RECORDS, Duration.ofSeconds(60));
        assertThat(described(deltaRows)).isEqualTo(produced);
        Row deltaFiltered = spark.sql("SELECT count(*) FROM delta.`" + location
                + "` WHERE kafka_timestamp >= TIMESTAMP '2026-11-30 00:00:00'").first();
        assertThat(deltaFiltered.getLong(0)).isEqualTo(expected);
    }

    /**
     * An upsert table published as Delta: after inserts, updates and tombstones in separate commits, its
     * Delta log pairs a data file with the deletion vector Iceberg wrote (the same Puffin blob), and
     * delta-spark returns the newest row of every key, the same rows by value as Spark's Iceberg read.
     */
    @Test
    void sparkReadsAnUpsertTableThroughDeltaAsThroughIceberg() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            admin.createTopics(List.of(new NewTopic(UPSERT_TOPIC, 2, (short) 1).configs(Map.of(
                    "floe.tableflow.enabled", "true", "floe.tableflow.mode", "upsert",
                    "floe.tableflow.format", "json", "floe.tableflow.schema", ACCOUNT_SCHEMA,
                    "floe.tableflow.commit.interval.ms", "200", "floe.tableflow.delta.enabled", "true"))))
                    .all().get(60, TimeUnit.SECONDS);
        }
        Map<String, Long> expected = new TreeMap<>();
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // Each wave is one batch per partition (sent by flush), so it is committed whole in one round.
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            Map<String, Long> wave = new TreeMap<>();
            for (int i = 0; i < ACCOUNTS; i++) {
                wave.put("k" + i, 1000L + i);
            }
            sendWave(producer, wave, expected);
            awaitTableRows(UPSERT_TOPIC, ACCOUNTS, Duration.ofSeconds(90));
            // Updates and deletes hide 5 of the first file's 200 rows: a deletion vector, no compaction.
            wave = new TreeMap<>();
            wave.put("k1", 2001L);
            wave.put("k2", 2002L);
            wave.put("k3", 2003L);
            wave.put("k4", null);
            wave.put("k5", null);
            sendWave(producer, wave, expected);
            awaitTableRows(UPSERT_TOPIC, ACCOUNTS + 3, Duration.ofSeconds(60));
            // Its vector is replaced by one of 7 rows; a deleted key comes back.
            wave = new TreeMap<>();
            wave.put("k6", 3006L);
            wave.put("k7", 3007L);
            wave.put("k4", 3004L);
            sendWave(producer, wave, expected);
        }
        Map<String, String> delta = accounts(awaitDeltaBalances(expected, Duration.ofSeconds(60)));
        Map<String, String> iceberg = accounts(spark.table("floe.floe." + UPSERT_TOPIC).collectAsList());
        assertThat(delta).hasSize(ACCOUNTS - 1).isEqualTo(iceberg);

        try (RESTCatalog catalog = new RESTCatalog()) {
            catalog.initialize("dv", Map.of(CatalogProperties.URI, catalogUri));
            Snapshot current = catalog.loadTable(TableIdentifier.of("floe", UPSERT_TOPIC)).currentSnapshot();
            assertThat(current.summary()).as("the Iceberg snapshot read hides rows by deletion vector")
                    .containsEntry("total-position-deletes", "7");
        }
        assertThat(deltaLog(tableLocation(UPSERT_TOPIC)))
                .as("the Delta log's add actions carry Iceberg's Puffin blobs as deletion vectors")
                .containsPattern("\"add\":\\{[^\\n]*\"deletionVector\":\\{\"storageType\":\"p\","
                        + "\"pathOrInlineDv\":\"file:[^\"]*\\.puffin\"[^}]*\"cardinality\":7\\}");
    }

    /** Sends one record per key of {@code wave} (a null balance is a tombstone) and flushes them as one batch. */
    private static void sendWave(KafkaProducer<byte[], byte[]> producer, Map<String, Long> wave,
            Map<String, Long> expected) throws Exception {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        for (Map.Entry<String, Long> change : wave.entrySet()) {
            String key = change.getKey();
            byte[] value = change.getValue() == null ? null
                    : bytes("{\"id\": " + key.substring(1) + ", \"balance\": " + change.getValue() + "}");
            sends.add(producer.send(new ProducerRecord<>(UPSERT_TOPIC, bytes(key), value)));
            if (change.getValue() == null) {
                expected.remove(key);
            } else {
                expected.put(key, change.getValue());
            }
        }
        producer.flush();
        for (Future<RecordMetadata> send : sends) {
            send.get(60, TimeUnit.SECONDS);
        }
    }

    /** Each account row by key: "id balance partition/offset". */
    private static Map<String, String> accounts(List<Row> rows) {
        Map<String, String> accounts = new TreeMap<>();
        for (Row row : rows) {
            String key = new String(row.<byte[]>getAs("kafka_key"), StandardCharsets.UTF_8);
            String previous = accounts.put(key, row.<Long>getAs("id") + " " + row.<Long>getAs("balance") + " "
                    + row.<Integer>getAs("kafka_partition") + "/" + row.<Long>getAs("kafka_offset"));
            assertThat(previous).as("a second row of key %s", key).isNull();
        }
        return accounts;
    }

    /** Reads the upsert table through delta-spark until its balance per key is {@code expected}; its rows. */
    private static List<Row> awaitDeltaBalances(Map<String, Long> expected, Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no read";
        while (Instant.now().isBefore(deadline)) {
            agent.assertAlive();
            try {
                List<Row> rows = spark.read().format("delta").load(tableLocation(UPSERT_TOPIC)).collectAsList();
                Map<String, Long> balances = new TreeMap<>();
                rows.forEach(row -> balances.put(new String(row.<byte[]>getAs("kafka_key"), StandardCharsets.UTF_8),
                        row.<Long>getAs("balance")));
                if (balances.equals(expected) && rows.size() == expected.size()) {
                    return rows;
                }
                last = rows.size() + " rows";
            } catch (RuntimeException e) {
                last = e.toString(); // no table or no Delta log yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the Delta table of " + UPSERT_TOPIC + " did not reach the newest balance of every"
                + " key in " + timeout + "; last: " + last + "\nagent log:\n" + agent.logTail());
    }

    /** The text of the Delta log's commit files under the (local) table location. */
    private static String deltaLog(String location) throws IOException {
        StringBuilder text = new StringBuilder();
        try (var files = Files.list(Path.of(java.net.URI.create(location.replaceFirst("^file:/+", "file:///")))
                .resolve("_delta_log"))) {
            for (Path file : files.sorted().toList()) {
                if (file.toString().endsWith(".json")) {
                    text.append(Files.readString(file, StandardCharsets.UTF_8));
                }
            }
        }
        return text.toString();
    }

    /** Each row as {@link #describe} makes it, by "partition/offset"; columns are read by name. */
    private static Map<String, String> described(List<Row> rows) {
        Map<String, String> read = new HashMap<>();
        for (Row row : rows) {
            Object amount = row.getAs("amount");
            read.put(row.<Integer>getAs("kafka_partition") + "/" + row.<Long>getAs("kafka_offset"), describe(
                    row.getAs("kafka_timestamp"), row.getAs("kafka_key"), headers(row.getAs("kafka_headers")),
                    row.<Long>getAs("id"), row.getAs("customer"), (Double) amount));
        }
        return read;
    }

    /** The table's location, as the REST catalog gives it; its Delta log is in {@code _delta_log/} below. */
    private static String tableLocation(String topic) {
        try (RESTCatalog catalog = new RESTCatalog()) {
            catalog.initialize("location", Map.of(CatalogProperties.URI, catalogUri));
            return catalog.loadTable(TableIdentifier.of("floe", topic)).location();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Reads the Delta table at {@code location} until it holds {@code count} rows: its log follows the
     * Iceberg commits, so it may still be one commit behind when the Iceberg table is complete.
     */
    private static List<Row> awaitDeltaRows(String location, int count, Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no read";
        while (Instant.now().isBefore(deadline)) {
            agent.assertAlive();
            try {
                List<Row> rows = spark.read().format("delta").load(location).collectAsList();
                if (rows.size() == count) {
                    return rows;
                }
                last = rows.size() + " rows";
            } catch (RuntimeException e) {
                last = e.toString(); // no Delta log yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the Delta table at " + location + " did not reach " + count + " rows in " + timeout
                + "; last: " + last + "\nagent log:\n" + agent.logTail());
    }

    /** Sends the records; returns each one's description by "partition/offset", as {@link #describe} makes it. */
    private static Map<String, String> produce() throws Exception {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        Map<String, String> produced = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            List<String> rows = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                Instant timestamp = FIRST_TIMESTAMP.plus(Duration.ofMinutes(37L * i));
                // Every seventh record has no key, no headers and no amount: nulls must read as nulls.
                boolean bare = i % 7 == 0;
                String key = bare ? null : "k" + i;
                String value = "{\"id\": " + i + ", \"customer\": \"c" + (i % 5) + "\""
                        + (bare ? "" : ", \"amount\": " + (i * 0.25)) + "}";
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(TOPIC, i % 2, timestamp.toEpochMilli(),
                        key == null ? null : bytes(key), bytes(value));
                String headers = "";
                if (!bare) {
                    record.headers().add("source", bytes("spark-it-" + i));
                    record.headers().add("empty", null);
                    headers = "source=spark-it-" + i + ",empty=null";
                }
                sends.add(producer.send(record));
                rows.add(describe(timestamp, key == null ? null : bytes(key), headers, i, "c" + (i % 5),
                        bare ? null : i * 0.25));
            }
            for (int i = 0; i < sends.size(); i++) {
                RecordMetadata sent = sends.get(i).get(60, TimeUnit.SECONDS);
                produced.put(sent.partition() + "/" + sent.offset(), rows.get(i));
            }
        }
        return produced;
    }

    private static String describe(Instant timestamp, byte[] key, String headers, long id, String customer,
            Double amount) {
        return timestamp + " key=" + (key == null ? "null" : new String(key, StandardCharsets.UTF_8))
                + " headers=[" + headers + "] id=" + id + " customer=" + customer + " amount=" + amount;
    }

    private static String headers(scala.collection.Seq<Row> headers) {
        if (headers == null) {
            return "";
        }
        List<String> pairs = new ArrayList<>();
        for (Row header : scala.jdk.javaapi.CollectionConverters.asJava(headers)) {
            byte[] value = header.getAs("value");
            pairs.add(header.<String>getAs("key") + "=" + (value == null ? "null" : new String(value, StandardCharsets.UTF_8)));
        }
        return String.join(",", pairs);
    }

    /**
     * Waits through the REST catalog (Iceberg's client from the Spark runtime) until the current snapshot
     * of {@code topic}'s table has {@code count} rows in its data files (an upsert table's rows that
     * deletion vectors hide count too): the agent commits every 200 ms while records arrive.
     */
    private static void awaitTableRows(String topic, long count, Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        String last = "no answer";
        try (RESTCatalog catalog = new RESTCatalog()) {
            catalog.initialize("wait", Map.of(CatalogProperties.URI, catalogUri));
            while (Instant.now().isBefore(deadline)) {
                agent.assertAlive();
                try {
                    Snapshot snapshot = catalog.loadTable(TableIdentifier.of("floe", topic)).currentSnapshot();
                    last = snapshot == null ? "no snapshot" : snapshot.summary().toString();
                    if (snapshot != null && Long.parseLong(snapshot.summary().getOrDefault("total-records", "0")) >= count) {
                        return;
                    }
                } catch (RuntimeException e) {
                    last = e.toString(); // the table does not exist yet, or the agent is still starting
                }
                Thread.sleep(100);
            }
        }
        throw new AssertionError("table " + topic + " did not reach " + count + " rows in " + timeout + "; last: "
                + last + "\nagent log:\n" + agent.logTail());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
