package io.floe.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Iceberg's own Kafka Connect sink, in a distributed Connect worker whose config, offset and
 * status topics are on a Floe agent, materializes a Floe topic into an Iceberg table (a JDBC catalog
 * on SQLite that the test owns, files on the local disk). The sink coordinates its commits through
 * transactions: each task's writer sends its data files' events to the control topic and the records'
 * offsets to the connector's consumer group in one transaction (TxnOffsetCommit with the group's
 * generation), and one coordinator, reading the control topic read_committed, commits the table. Every
 * value produced is in the table exactly once: over two batches, and across a SIGKILL of the worker.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class IcebergSinkIT {

    private static final String TOPIC = "events";
    private static final int PARTITIONS = 2;
    private static final String CONTROL_TOPIC = "control-iceberg";
    private static final String CONNECTOR = "iceberg-sink";
    /** The consumer group Connect runs a sink connector's tasks in. */
    private static final String CONNECTOR_GROUP = "connect-" + CONNECTOR;
    /** The consumer group the sink's coordinator reads the control topic in (Iceberg names it so). */
    private static final String COORDINATOR_GROUP = CONNECTOR_GROUP + "-coord";
    private static final String CATALOG = "floe";
    private static final TableIdentifier TABLE = TableIdentifier.of("floe", TOPIC);
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "text", Types.StringType.get()));
    private static final int BATCH = 200;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * After a kill: the dead worker's and tasks' group members time out (10 s each, see ConnectWorker)
     * and a transaction it left open is aborted by Floe when its timeout (the producer's default, 60 s)
     * passes, before the control topic's last stable offset moves on.
     */
    private static final Duration RECOVERY_WAIT = Duration.ofSeconds(180);

    /** Kept when the test fails: the agent's and the worker's logs are in it. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void everyRecordReachesTheTableOnceThroughTheSinksTransactions() throws Exception {
        try (FloeAgent floe = FloeAgent.start(dir.resolve("floe-data"), dir.resolve("agent.log"));
                JdbcCatalog catalog = catalog()) {
            createTopicsAndTable(floe, catalog);
            try (ConnectWorker worker = startSink(floe)) {
                List<String> produced = new ArrayList<>(produce(floe, "first"));
                Table table = awaitRows(catalog, produced.size(), floe, worker, WAIT);
                assertThat(values(table)).containsExactlyInAnyOrderElementsOf(produced);
                long firstCommit = table.currentSnapshot().snapshotId();

                produced.addAll(produce(floe, "second"));
                table = awaitRows(catalog, produced.size(), floe, worker, WAIT);
                assertThat(values(table)).containsExactlyInAnyOrderElementsOf(produced);
                Snapshot last = table.currentSnapshot();
                assertThat(last.snapshotId()).isNotEqualTo(firstCommit);
                assertThat(SnapshotUtil.isAncestorOf(table, last.snapshotId(), firstCommit))
                        .as("the second batch was appended after the first commit")
                        .isTrue();
                assertOnlyAppends(table);

                try (Admin admin = floe.admin()) {
                    assertOffsetsCommittedInTransactions(admin, Set.of());
                }
            }
        }
    }

    /**
     * The worker is killed with SIGKILL just after a batch is acknowledged, while its tasks hold the
     * batch in open data files or in a commit round: whatever the sink's transactions had done by then
     * (a writer's events and offsets committed or not, a transaction left open) a new worker resumes
     * from the offsets those transactions committed, and the table ends with every record once.
     */
    @Test
    void aWorkerKilledMidRunLeavesEveryRecordOnce() throws Exception {
        try (FloeAgent floe = FloeAgent.start(dir.resolve("floe-data"), dir.resolve("agent.log"));
                JdbcCatalog catalog = catalog()) {
            createTopicsAndTable(floe, catalog);
            List<String> produced = new ArrayList<>();
            Set<String> killedIds;
            try (ConnectWorker first = startSink(floe);
                    Admin admin = floe.admin()) {
                produced.addAll(produce(floe, "before"));
                awaitRows(catalog, produced.size(), floe, first, WAIT);
                awaitControlOffsetCommitted(admin);
                produced.addAll(produce(floe, "killed"));
                killedIds = sinkTransactionalIds(admin);
            } // close() is SIGKILL
            try (ConnectWorker second = startSink(floe)) {
                produced.addAll(produce(floe, "after"));
                Table table = awaitRows(catalog, produced.size(), floe, second, RECOVERY_WAIT);
                assertThat(values(table)).containsExactlyInAnyOrderElementsOf(produced);
                assertOnlyAppends(table);
                try (Admin admin = floe.admin()) {
                    assertOffsetsCommittedInTransactions(admin, killedIds);
                }
            }
        }
    }

    private static void createTopicsAndTable(FloeAgent floe, JdbcCatalog catalog) throws Exception {
        try (Admin admin = floe.admin()) {
            admin.createTopics(List.of(
                            new NewTopic(TOPIC, PARTITIONS, (short) 1),
                            // The sink does not create its control topic; its docs ask users to.
                            new NewTopic(CONTROL_TOPIC, 1, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        catalog.createNamespace(TABLE.namespace());
        catalog.createTable(TABLE, SCHEMA);
    }

    /** Starts a worker (in the same Connect cluster each time) and the sink on it, as a user would. */
    private ConnectWorker startSink(FloeAgent floe) throws Exception {
        ConnectWorker worker = ConnectWorker.start(floe.bootstrap(), "floe-connect", dir);
        try {
            worker.awaitReady(WAIT);
            worker.putConnector(CONNECTOR, sinkConfig());
            worker.awaitRunning(CONNECTOR, PARTITIONS, WAIT);
            return worker;
        } catch (Exception | AssertionError e) {
            worker.close();
            throw e;
        }
    }

    private static void assertOnlyAppends(Table table) {
        assertThat(table.snapshots()).allSatisfy(snapshot -> assertThat(snapshot.operation())
                .isEqualTo("append"));
    }

    /**
     * Waits until the sink's coordinator has committed its control-topic offset once. Iceberg's
     * coordinator resumes the control topic from its group's committed offset and, with none, from the
     * end, so a coordinator killed before its first offset commit loses the data events of the commit in
     * flight (on Kafka as on Floe: the sink's own recovery, not the broker's). Killing it later tests
     * what this test is for.
     */
    private static void awaitControlOffsetCommitted(Admin admin) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (admin.listConsumerGroupOffsets(COORDINATOR_GROUP)
                .partitionsToOffsetAndMetadata()
                .get(60, TimeUnit.SECONDS)
                .isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the sink's coordinator committed no offset of " + CONTROL_TOPIC + " in "
                        + WAIT + " (group " + COORDINATOR_GROUP + ")");
            }
            Thread.sleep(200);
        }
    }

    /** The transactional ids the sink's writers and coordinator have used so far. */
    private static Set<String> sinkTransactionalIds(Admin admin) throws Exception {
        return admin.listTransactions().all().get(60, TimeUnit.SECONDS).stream()
                .map(TransactionListing::transactionalId)
                .filter(id -> id.matches("(coordinator|worker)-txn-.+"))
                .collect(Collectors.toSet());
    }

    /**
     * The sink's preCommit gives Connect no offsets to commit: the group's offsets come only from its
     * transactions (TxnOffsetCommit then EndTxn commit). Once the table holds every record they are the
     * log end offsets, and the sink's transactional ids are known to Floe's coordinator, none aborted
     * except those of a killed worker ({@code killedIds}): a transaction it left open is aborted by its
     * timeout, as Kafka's coordinator does. Those are counted in the failure message, never excused for
     * a live worker.
     */
    private static void assertOffsetsCommittedInTransactions(Admin admin, Set<String> killedIds) throws Exception {
        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(TOPIC, p))
                .toList();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(
                        partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest())))
                .all()
                .get(60, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(CONNECTOR_GROUP)
                .partitionsToOffsetAndMetadata()
                .get(60, TimeUnit.SECONDS);
        assertThat(committed.keySet()).containsExactlyInAnyOrderElementsOf(partitions);
        for (TopicPartition partition : partitions) {
            assertThat(committed.get(partition).offset())
                    .as("offset of %s committed by the sink's transactions", partition)
                    .isEqualTo(ends.get(partition).offset());
        }
        Collection<TransactionListing> transactions =
                admin.listTransactions().all().get(60, TimeUnit.SECONDS);
        // The sink names them coordinator-txn-<uuid>-<task> and worker-txn-<uuid>-<task>.
        List<TransactionListing> sink = transactions.stream()
                .filter(listing -> listing.transactionalId().matches("(coordinator|worker)-txn-.+"))
                .toList();
        // A writer per task and the coordinator, at least (a rebalance gives a task's writer a new id).
        assertThat(sink).as("the sink's transactional ids among %s", transactions).hasSizeGreaterThanOrEqualTo(3);
        List<TransactionListing> aborted = sink.stream()
                .filter(listing -> listing.state() == TransactionState.PREPARE_ABORT
                        || listing.state() == TransactionState.COMPLETE_ABORT)
                .toList();
        assertThat(aborted)
                .as("aborted transactions of the sink (%d of them of the killed worker's ids %s, which may abort)",
                        aborted.stream().filter(listing -> killedIds.contains(listing.transactionalId())).count(),
                        killedIds)
                .allSatisfy(listing -> assertThat(killedIds).contains(listing.transactionalId()));
    }

    private Map<String, String> sinkConfig() {
        return Map.ofEntries(
                Map.entry("connector.class", "org.apache.iceberg.connect.IcebergSinkConnector"),
                Map.entry("tasks.max", Integer.toString(PARTITIONS)),
                Map.entry("topics", TOPIC),
                Map.entry("iceberg.tables", TABLE.toString()),
                Map.entry("iceberg.catalog", CATALOG),
                Map.entry("iceberg.catalog.catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog"),
                Map.entry("iceberg.catalog.uri", catalogUri()),
                Map.entry("iceberg.catalog.warehouse", warehouse()),
                Map.entry("iceberg.control.topic", CONTROL_TOPIC),
                Map.entry("iceberg.control.commit.interval-ms", "1000"),
                // A commit round that a writer missed (it joined after the round began) ends sooner.
                Map.entry("iceberg.control.commit.timeout-ms", "5000"),
                // The sink's own consumers (its coordinator's above all): a killed worker's members leave
                // after 10 s, as its tasks' do (ConnectWorker), not after the client's default 45 s.
                Map.entry("iceberg.kafka.session.timeout.ms", "10000"),
                Map.entry("iceberg.kafka.heartbeat.interval.ms", "1000"));
    }

    /** The same catalog the sink writes, by Iceberg's own loader, for the test to create and read the table. */
    private JdbcCatalog catalog() {
        return (JdbcCatalog) CatalogUtil.buildIcebergCatalog(
                CATALOG,
                Map.of(
                        CatalogProperties.CATALOG_IMPL, "org.apache.iceberg.jdbc.JdbcCatalog",
                        CatalogProperties.URI, catalogUri(),
                        CatalogProperties.WAREHOUSE_LOCATION, warehouse()),
                new Configuration());
    }

    private String catalogUri() {
        return "jdbc:sqlite:" + dir.resolve("catalog.db");
    }

    private String warehouse() {
        return dir.resolve("warehouse").toUri().toString();
    }

    /** Sends {@link #BATCH} JSON records, half to each partition; returns them as {@link #values} reads them. */
    private static List<String> produce(FloeAgent floe, String batch) throws Exception {
        List<String> produced = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap(), ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(),
                new StringSerializer())) {
            List<Future<?>> sends = new ArrayList<>();
            for (int i = 0; i < BATCH; i++) {
                String text = batch + "-" + i;
                sends.add(producer.send(new ProducerRecord<>(
                        TOPIC, i % PARTITIONS, "k" + i, "{\"id\": " + i + ", \"text\": \"" + text + "\"}")));
                produced.add(i + "/" + text);
            }
            for (Future<?> send : sends) {
                send.get(60, TimeUnit.SECONDS);
            }
        }
        return produced;
    }

    /** Waits until the table's current snapshot counts {@code rows} records; returns the table then. */
    private static Table awaitRows(Catalog catalog, long rows, FloeAgent floe, ConnectWorker worker, Duration wait)
            throws InterruptedException {
        Instant deadline = Instant.now().plus(wait);
        String last = "no snapshot";
        while (Instant.now().isBefore(deadline)) {
            floe.assertAlive();
            worker.assertAlive();
            Table table = catalog.loadTable(TABLE);
            Snapshot snapshot = table.currentSnapshot();
            if (snapshot != null) {
                last = snapshot.summary().toString();
                if (Long.parseLong(snapshot.summary().getOrDefault("total-records", "0")) >= rows) {
                    return table;
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("table " + TABLE + " did not reach " + rows + " records in " + wait + "; last: "
                + last + "\nworker log:\n" + worker.logTail(80) + "\nagent log:\n" + floe.logTail(40));
    }

    /** Every row of the table by Iceberg's own reader, as "id/text". */
    private static List<String> values(Table table) {
        List<String> values = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            rows.forEach(row -> values.add(row.getField("id") + "/" + row.getField("text")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return values;
    }
}
