package io.floe.tableflow;

import static io.floe.tableflow.ChangeTopicReads.events;
import static io.floe.tableflow.ChangeTopicReads.inPartition;
import static io.floe.tableflow.ChangeTopicReads.rebuilt;
import static io.floe.tableflow.ChangeTopicReads.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.tableflow.CommitFaults.Fault;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.table.Watermark;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.iceberg.Table;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The change topic of a table ({@code floe.tableflow.changes.topic}) read by a plain KafkaConsumer with
 * {@code isolation.level=read_committed} from its start, as any Debezium consumer reads one: an upsert
 * table through inserts, updates and deletes over many commits, compactions, a restart of the table jobs
 * in the middle of the stream, the agent killed after a commit applied and before its changes were
 * published ({@link CommitFaults#armKill}) and a zombie producer of the stream's transactional id. Each partition of
 * the change topic holds exactly the changes the produced log implies for its source partition, once
 * each and in offset order, a tombstone after each delete; rebuilding key → after from it gives the
 * table's rows, compared by value with an Iceberg read of the table.
 */
class ChangeTopicIT {

    private static final Duration CATCH_UP = Duration.ofSeconds(60);
    private static final String TOPIC = "accounts";
    private static final String CHANGES = "accounts.changes";
    private static final String GROUP = "floe-tableflow-changes-" + TOPIC;
    private static final int PARTITIONS = 3;
    private static final int KEYS = 40;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private CommitFaults faults;
    private Admin admin;
    private final Random random = new Random(2019);
    private final ProducedLog produced = new ProducedLog();

    private void start(long offsetsPerTransaction) {
        floe = new TableflowHarness(dataDir, catalog -> faults = new CommitFaults(catalog))
                .startTableflowWithChangeTopics(
                        dataDir.resolve("spool"), config -> config.withOffsetsPerTransaction(offsetsPerTransaction));
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()));
    }

    @AfterEach
    void stop() throws Exception {
        if (admin != null) {
            admin.close();
        }
        if (floe != null) {
            floe.close();
        }
    }

    @Test
    void anUpsertTablesChangesArePublishedOnceInOrderAndRebuildItsRows() throws Exception {
        start(100_000);
        createTopic(TOPIC, "upsert", CHANGES);
        KafkaProducer<byte[], byte[]> zombie;
        try (KafkaProducer<byte[], byte[]> producer = floe.producer()) {
            for (int round = 0; round < 4; round++) {
                produce(producer, TOPIC, 120, round == 0 ? 0.0 : 0.2);
                awaitPublished(floe.awaitCaughtUp(TOPIC, CATCH_UP));
            }

            // A zombie: a producer of the stream's transactional id, as a lease holder that lost its lease
            // keeps one. It fences the agent's producer (whose next transaction fails; the stream starts over
            // with a new one, fencing the zombie in turn) and opens a transaction that would duplicate a
            // change and move the progress back to the start.
            ConsumerRecord<byte[], byte[]> first =
                    ChangeTopicReads.read(floe.bootstrap(), CHANGES).get(0).get(0);
            zombie = transactionalProducer(GROUP);
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(new ProducerRecord<>(CHANGES, 0, first.key(), first.value()));
            zombie.sendOffsetsToTransaction(
                    Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(0)), groupMetadata(GROUP));
            produce(producer, TOPIC, 120, 0.2);
            awaitPublished(floe.awaitCaughtUp(TOPIC, CATCH_UP));

            // The lease moves (a new job, nothing kept in memory) while records are still arriving.
            produce(producer, TOPIC, 120, 0.2);
            floe.restartTableflow(dataDir.resolve("spool"));
            for (int round = 0; round < 3; round++) {
                produce(producer, TOPIC, 120, 0.25);
                awaitPublished(floe.awaitCaughtUp(TOPIC, CATCH_UP));
            }

            // The agent is killed after a round's commit applied, before it published the commit's changes:
            // the new job publishes them without waiting for a commit of its own.
            CommitFaults.Fired kill = new CommitFaults.Fired(floe.tables.identifier(TOPIC), Fault.APPLIED_THEN_UNKNOWN);
            faults.armKill(kill.table(), kill.fault());
            produce(producer, TOPIC, 40, 0.25);
            faults.awaitFired(kill, CATCH_UP);
            floe.killTableflow(dataDir.resolve("spool"));
            awaitPublished(floe.awaitCaughtUp(TOPIC, CATCH_UP));
            produce(producer, TOPIC, 120, 0.25);
            awaitPublished(floe.awaitCaughtUp(TOPIC, CATCH_UP));
        }
        assertThatThrownBy(zombie::commitTransaction)
                .as("the new holder's producer fenced the zombie")
                .isInstanceOfAny(ProducerFencedException.class, InvalidProducerEpochException.class);
        zombie.close(Duration.ZERO);

        Table table = floe.tables.load(TOPIC).orElseThrow();
        assertThat(TableflowHarness.snapshots(table))
                .as("a compaction among the commits")
                .anyMatch(snapshot -> snapshot.summary().containsKey("floe.compacted-at"));
        Offsets end = Offsets.of(Watermark.of(table).orElseThrow().nextOffsets());
        List<String> expected = produced.full(table, Offsets.START, end);
        assertThat(expected)
                .anyMatch(line -> line.startsWith("c "))
                .anyMatch(line -> line.startsWith("u "))
                .anyMatch(line -> line.startsWith("d "));

        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> changes = ChangeTopicReads.read(floe.bootstrap(), CHANGES);
        for (int partition = 0; partition < PARTITIONS; partition++) {
            assertThat(events(changes.get(partition)))
                    .as("partition %d: every change of source partition %d once, in offset order", partition, partition)
                    .containsExactlyElementsOf(inPartition(expected, partition));
            assertTombstoneAfterEachDelete(changes.get(partition));
        }
        assertThat(rebuilt(changes)).as("key → after, replayed").isEqualTo(rows(table));
        assertEnvelope(changes, table);
        assertThat(floe.meters
                        .get("floe.tableflow.changes.stream.transactions")
                        .tag("outcome", "fenced")
                        .counter()
                        .count())
                .as("the zombie fenced the agent's producer once")
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void anAppendTablesRowsArePublishedAsCreatesInBoundedTransactions() throws Exception {
        start(7); // many transactions per commit
        createTopic(TOPIC, "append", CHANGES);
        try (KafkaProducer<byte[], byte[]> producer = floe.producer()) {
            for (int round = 0; round < 3; round++) {
                produce(producer, TOPIC, 60, 0.1);
                awaitPublished(floe.awaitCaughtUp(TOPIC, CATCH_UP));
            }
        }
        Table table = floe.tables.load(TOPIC).orElseThrow();
        Offsets end = Offsets.of(Watermark.of(table).orElseThrow().nextOffsets());
        List<String> expected = produced.appended(table, Offsets.START, end);
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> changes = ChangeTopicReads.read(floe.bootstrap(), CHANGES);
        for (int partition = 0; partition < PARTITIONS; partition++) {
            assertThat(events(changes.get(partition)))
                    .as("partition %d: a create for every row, once, in offset order", partition)
                    .containsExactlyElementsOf(inPartition(expected, partition));
        }
        assertThat(floe.meters
                        .get("floe.tableflow.changes.stream.transactions")
                        .tag("outcome", "committed")
                        .counter()
                        .count())
                .as("at most 7 offsets a transaction")
                .isGreaterThanOrEqualTo(
                        end.next().values().stream().mapToLong(Long::longValue).sum() / 7.0);
        assertThat(admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, CHANGES)))
                        .all()
                        .get()
                        .values()
                        .iterator()
                        .next()
                        .get("cleanup.policy")
                        .value())
                .as("an append table's change topic keeps every row (keys repeat or are missing)")
                .isEqualTo("delete");
    }

    @Test
    void aTableWhoseHistoryIsGoneStartsWithASnapshotAndAGapHaltsUntilTheStreamIsMovedBack() throws Exception {
        start(100_000);
        createTopic(TOPIC, "upsert", "");
        try (KafkaProducer<byte[], byte[]> producer = floe.producer()) {
            produce(producer, TOPIC, 100, 0.0);
            produce(producer, TOPIC, 100, 0.3);
            Table table = floe.awaitCaughtUp(TOPIC, CATCH_UP);
            deleteRecordsBelow(table); // the log no longer replays the table from its start

            setChangesTopic(CHANGES);
            awaitPublished(floe.awaitCaughtUp(TOPIC, CATCH_UP));
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> changes =
                    ChangeTopicReads.read(floe.bootstrap(), CHANGES);
            assertThat(changes.values().stream().flatMap(List::stream).map(ChangeTopicReads::op))
                    .as("an initial snapshot: a read event for each row")
                    .isNotEmpty()
                    .allMatch("r true"::equals);
            assertThat(rebuilt(changes)).isEqualTo(rows(table));

            produce(producer, TOPIC, 100, 0.3);
            table = floe.awaitCaughtUp(TOPIC, CATCH_UP);
            awaitPublished(table);
            assertThat(rebuilt(ChangeTopicReads.read(floe.bootstrap(), CHANGES)))
                    .as("after changes on the snapshot")
                    .isEqualTo(rows(table));
            Map<Integer, Long> before = progress();

            // A gap: while the change topic is off, the table deletes and changes rows, and the log of that
            // is deleted. Turned on again, the stream cannot replay it and halts.
            setChangesTopic("");
            produce(producer, TOPIC, 150, 0.5);
            table = floe.awaitCaughtUp(TOPIC, CATCH_UP);
            deleteRecordsBelow(table);
            setChangesTopic(CHANGES);
            awaitGauge("floe.tableflow.changes.stream.halted", 1);
            assertThat(progress()).as("a halted stream keeps its progress").isEqualTo(before);

            // Deleting the stream's group does not move it: each turn reads the progress back from the change
            // topic and halts on the same gap (a second read back means the first turn committed nothing).
            admin.deleteConsumerGroups(List.of(GROUP)).all().get();
            awaitCounter("floe.tableflow.changes.stream.progress.recovered", 2);
            assertThat(progress()).as("no snapshot after the group was deleted").isEmpty();
            assertThat(floe.meters
                            .get("floe.tableflow.changes.stream.halted")
                            .tag("topic", TOPIC)
                            .gauge()
                            .value())
                    .isEqualTo(1);

            // The documented way on: move the stream to offset 0 by hand. The log no longer replays from there,
            // so it restarts with a snapshot that also deletes what the gap deleted, and replaying the topic
            // from its start still gives the table.
            Map<TopicPartition, OffsetAndMetadata> toStart = new HashMap<>();
            for (int partition = 0; partition < PARTITIONS; partition++) {
                toStart.put(new TopicPartition(TOPIC, partition), new OffsetAndMetadata(0));
            }
            admin.alterConsumerGroupOffsets(GROUP, toStart).all().get();
            awaitPublished(table);
            awaitGauge("floe.tableflow.changes.stream.halted", 0);
            changes = ChangeTopicReads.read(floe.bootstrap(), CHANGES);
            assertThat(changes.values().stream().flatMap(List::stream).map(ChangeTopicReads::op))
                    .as("the second snapshot deletes rows the gap deleted")
                    .contains("d true");
            assertThat(rebuilt(changes)).as("replayed across the gap").isEqualTo(rows(table));
        }
    }

    private void deleteRecordsBelow(Table table) throws Exception {
        Map<TopicPartition, RecordsToDelete> below = new HashMap<>();
        Watermark.of(table)
                .orElseThrow()
                .nextOffsets()
                .forEach((partition, next) ->
                        below.put(new TopicPartition(TOPIC, partition), RecordsToDelete.beforeOffset(next)));
        admin.deleteRecords(below).all().get();
    }

    private void setChangesTopic(String name) throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        admin.incrementalAlterConfigs(Map.of(
                        topic,
                        List.of(new AlterConfigOp(
                                new ConfigEntry("floe.tableflow.changes.topic", name), AlterConfigOp.OpType.SET))))
                .all()
                .get();
    }

    private void awaitGauge(String name, double value) throws InterruptedException {
        Instant deadline = Instant.now().plus(CATCH_UP);
        while (floe.meters.find(name).tag("topic", TOPIC).gauge() == null
                || floe.meters.find(name).tag("topic", TOPIC).gauge().value() != value) {
            assertThat(Instant.now()).as("%s reaches %s", name, value).isBefore(deadline);
            Thread.sleep(50);
        }
    }

    private static void assertTombstoneAfterEachDelete(List<ConsumerRecord<byte[], byte[]>> records) throws Exception {
        for (int i = 0; i < records.size(); i++) {
            ConsumerRecord<byte[], byte[]> record = records.get(i);
            boolean delete = record.value() != null
                    && JSON.readTree(record.value()).get("op").asText().equals("d");
            if (delete) {
                assertThat(i + 1)
                        .as("a record after the delete at %d", record.offset())
                        .isLessThan(records.size());
                ConsumerRecord<byte[], byte[]> next = records.get(i + 1);
                assertThat(next.value())
                        .as("a tombstone after the delete at %d", record.offset())
                        .isNull();
                assertThat(next.key()).isEqualTo(record.key());
            } else if (record.value() == null) {
                assertThat(i).as("a tombstone only after a delete").isPositive();
            }
        }
    }

    /** Debezium's envelope: its fields, and the source's commit being a snapshot of the table at its time. */
    private static void assertEnvelope(Map<Integer, List<ConsumerRecord<byte[], byte[]>>> changes, Table table)
            throws Exception {
        Map<Long, Long> commitTimes = new HashMap<>();
        table.snapshots().forEach(snapshot -> commitTimes.put(snapshot.snapshotId(), snapshot.timestampMillis()));
        for (List<ConsumerRecord<byte[], byte[]>> partition : changes.values()) {
            for (ConsumerRecord<byte[], byte[]> record : partition) {
                if (record.value() == null) {
                    continue;
                }
                JsonNode event = JSON.readTree(record.value());
                assertThat(iterable(event.fieldNames()))
                        .containsExactly("before", "after", "source", "op", "ts_ms", "transaction");
                JsonNode source = event.get("source");
                assertThat(source.get("connector").asText()).isEqualTo("floe");
                assertThat(source.get("name").asText()).isEqualTo("test-cluster");
                assertThat(source.get("db").asText()).isEqualTo("floe");
                assertThat(source.get("table").asText()).isEqualTo(TOPIC);
                assertThat(source.get("topic").asText()).isEqualTo(TOPIC);
                assertThat(source.get("snapshot").asText()).isEqualTo("false");
                assertThat(source.get("partition").asInt()).isEqualTo(record.partition());
                long snapshotId = source.get("snapshot_id").asLong();
                if (commitTimes.containsKey(snapshotId)) { // expiry may have taken old snapshots
                    assertThat(source.get("ts_ms").asLong()).isEqualTo(commitTimes.get(snapshotId));
                }
                assertThat(event.get("ts_ms").asLong())
                        .isGreaterThanOrEqualTo(source.get("ts_ms").asLong());
                assertThat(event.get("transaction").isNull()).isTrue();
            }
        }
    }

    private static List<String> iterable(java.util.Iterator<String> names) {
        List<String> list = new ArrayList<>();
        names.forEachRemaining(list::add);
        return list;
    }

    private void awaitCounter(String name, double atLeast) throws InterruptedException {
        Instant deadline = Instant.now().plus(CATCH_UP);
        while (floe.meters.find(name).tag("topic", TOPIC).counter() == null
                || floe.meters.find(name).tag("topic", TOPIC).counter().count() < atLeast) {
            assertThat(Instant.now()).as("%s reaches %s", name, atLeast).isBefore(deadline);
            Thread.sleep(50);
        }
    }

    /** Waits until the stream's committed progress reaches the table's watermark. */
    private void awaitPublished(Table table) throws Exception {
        Map<Integer, Long> watermark = Watermark.of(table).orElseThrow().nextOffsets();
        Instant deadline = Instant.now().plus(CATCH_UP);
        while (true) {
            Map<Integer, Long> progress = progress();
            if (progress.equals(watermark)) {
                return;
            }
            assertThat(Instant.now())
                    .as("change topic reaches the table's watermark %s; progress %s", watermark, progress)
                    .isBefore(deadline);
            Thread.sleep(50);
        }
    }

    /** The stream's progress: its group's committed offsets on the source topic (none while a snapshot is read). */
    private Map<Integer, Long> progress() throws Exception {
        return ChangeTopicReads.progress(admin, TOPIC);
    }

    private void createTopic(String name, String mode, String changes) throws Exception {
        Map<String, String> configs = new HashMap<>(ProducedLog.tableConfigs(mode));
        configs.put("floe.tableflow.changes.topic", changes);
        admin.createTopics(List.of(new NewTopic(name, PARTITIONS, (short) 1).configs(configs)))
                .all()
                .get();
    }

    private void produce(KafkaProducer<byte[], byte[]> producer, String topic, int count, double tombstones)
            throws Exception {
        produced.produce(producer, topic, random, KEYS, count, tombstones, false);
    }

    private KafkaProducer<byte[], byte[]> transactionalProducer(String transactionalId) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The metadata of a consumer of {@code group} that never joins, as the stream sends its offsets with. */
    private ConsumerGroupMetadata groupMetadata(String group) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            return consumer.groupMetadata();
        }
    }
}
