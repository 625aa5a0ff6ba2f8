package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.producers.TransactionalIdExpiry;
import io.floe.maintenance.retention.Retention;
import io.floe.tableflow.CommitFaults.Fault;
import io.floe.tableflow.changes.Offsets;
import io.floe.tableflow.changes.stream.ChangeStreamConfig;
import io.floe.tableflow.changes.stream.ChangeStreams;
import io.floe.tableflow.table.CommitFollower;
import io.floe.tableflow.table.TableJobs;
import io.floe.tableflow.table.Watermark;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change topics over days, on a clock the test moves, with the table jobs polled by hand (no Tableflow
 * thread): a quiet week in which offset expiry and transactional id expiry run, a stream turned off past
 * its progress's expiry, a commit whose answer was lost on a topic that then goes quiet, retention
 * running while a stream is behind, and an initial snapshot published in bounded steps across a restart
 * and the expiry of the snapshot it was reading. After each, every change of the table is in its change
 * topic exactly once, in offset order ({@link ProducedLog} computes them from what was produced).
 */
@Timeout(300)
class ChangeTopicOverTimeIT {

    private static final String ACCOUNTS = "accounts";
    private static final String EVENTS = "events";
    private static final int PARTITIONS = 3;
    private static final int KEYS = 40;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration QUIET_WEEK = Duration.ofDays(8);

    @TempDir
    Path dataDir;

    private final ShiftedClock clock = new ShiftedClock();
    private final Random random = new Random(2027);
    private final Map<String, ProducedLog> produced = new HashMap<>();
    private TableflowHarness floe;
    private CommitFaults faults;
    private Admin admin;
    private KafkaProducer<byte[], byte[]> producer;
    private ChangeStreams streams;
    private TableJobs jobs;
    private int spools;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir, catalog -> faults = new CommitFaults(catalog), clock);
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()));
        producer = floe.producer();
        startJobs(UnaryOperator.identity());
    }

    @AfterEach
    void stop() throws Exception {
        if (jobs != null) {
            stopJobs();
        }
        producer.close();
        admin.close();
        floe.close();
    }

    /**
     * Defect 1: the stream's progress (its group's offsets) and its transactional id outlive a quiet
     * week in which offset expiry and id expiry run, and the next lease holder publishes only what is new.
     */
    @Test
    void aQuietWeekWithOffsetAndIdExpiryPublishesNoChangeTwice() throws Exception {
        createTopic(ACCOUNTS, "upsert", changes(ACCOUNTS));
        createTopic(EVENTS, "append", changes(EVENTS));
        for (int round = 0; round < 2; round++) {
            produce(ACCOUNTS, 100, round == 0 ? 0.0 : 0.25);
            produce(EVENTS, 60, 0.1);
            publish(ACCOUNTS, EVENTS);
        }

        stopJobs();
        clock.step(QUIET_WEEK);
        floe.agent.groups().expireOffsets();
        new TransactionalIdExpiry(floe.metadata, Duration.ofDays(7), floe.meters).run(clock.instant());
        startJobs(UnaryOperator.identity());

        produce(ACCOUNTS, 60, 0.25);
        produce(EVENTS, 60, 0.1);
        publish(ACCOUNTS, EVENTS);
        assertPublishedOnce(ACCOUNTS, "upsert");
        assertPublishedOnce(EVENTS, "append");
    }

    /**
     * Defect 1, the stream keeping itself fresh: with the offsets of its group not retained by the agent,
     * a caught-up stream that publishes nothing for a week still commits its progress once a day, so
     * neither its offsets nor its transactional id expire.
     */
    @Test
    void aCaughtUpStreamCommitsItsProgressOnceADay() throws Exception {
        stopJobs();
        streams = floe.changeStreams(UnaryOperator.identity());
        // A lease long enough to outlive each day the clock moves: the same stream goes on throughout.
        jobs = floe.tableJobs(
                dataDir.resolve("spool-" + spools++), streams, config -> config.withLeaseTtl(Duration.ofDays(30)));
        createTopic(ACCOUNTS, "upsert", changes(ACCOUNTS));
        produce(ACCOUNTS, 60, 0.0);
        publish(ACCOUNTS);
        floe.agent.groups().retainOffsetsOf(group -> false);
        double changes = publishedChanges();

        for (int day = 0; day < 8; day++) {
            double transactions = committedTransactions();
            clock.step(Duration.ofDays(1).plusMinutes(1));
            pollUntil(() -> committedTransactions() > transactions, "a keep-alive on day " + day);
            for (int poll = 0; poll < 20; poll++) { // rounds for half a second more: no other keep-alive that day
                jobs.poll();
                Thread.sleep(25);
            }
            assertThat(committedTransactions()).as("one a day").isEqualTo(transactions + 1);
        }
        floe.agent.groups().expireOffsets();
        new TransactionalIdExpiry(floe.metadata, Duration.ofDays(7), floe.meters).run(clock.instant());

        assertThat(ChangeTopicReads.progress(admin, ACCOUNTS)).isEqualTo(watermark(ACCOUNTS));
        assertThat(floe.metadata.transaction(ChangeTopicReads.group(ACCOUNTS))).isPresent();
        assertThat(publishedChanges()).as("nothing published").isEqualTo(changes);
    }

    /**
     * Defect 1, the fallback: a stream turned off for longer than offset retention loses its progress
     * (nothing owns the group then); turned on again, it reads its position back from the change topic's
     * last committed events, and publishes what the table committed meanwhile, once.
     */
    @Test
    void aStreamWhoseProgressExpiredWhileItWasOffResumesFromItsChangeTopic() throws Exception {
        createTopic(ACCOUNTS, "upsert", changes(ACCOUNTS));
        createTopic(EVENTS, "append", changes(EVENTS));
        for (int round = 0; round < 2; round++) {
            produce(ACCOUNTS, 100, round == 0 ? 0.0 : 0.25);
            produce(EVENTS, 60, 0.1);
            publish(ACCOUNTS, EVENTS);
        }

        setChangesTopic(ACCOUNTS, "");
        setChangesTopic(EVENTS, "");
        produce(ACCOUNTS, 60, 0.25);
        produce(EVENTS, 60, 0.1);
        awaitTables(ACCOUNTS, EVENTS);
        clock.step(QUIET_WEEK);
        floe.agent.groups().expireOffsets();
        assertThat(ChangeTopicReads.progress(admin, ACCOUNTS))
                .as("the progress of a stream that is off expires")
                .isEmpty();

        setChangesTopic(ACCOUNTS, changes(ACCOUNTS));
        setChangesTopic(EVENTS, changes(EVENTS));
        produce(ACCOUNTS, 60, 0.25);
        produce(EVENTS, 60, 0.1);
        publish(ACCOUNTS, EVENTS);
        assertPublishedOnce(ACCOUNTS, "upsert");
        assertPublishedOnce(EVENTS, "append");
    }

    /**
     * Defect 4: a round's commit applies but its answer is lost (the round fails), and no record comes
     * after it: the stream still publishes the commit, since it compares the table's snapshot with the
     * last one it published instead of waiting for a round that says it committed.
     */
    @Test
    void aCommitWhoseAnswerWasLostIsPublishedWhenTheTopicGoesQuiet() throws Exception {
        createTopic(ACCOUNTS, "upsert", changes(ACCOUNTS));
        produce(ACCOUNTS, 100, 0.0);
        publish(ACCOUNTS);

        CommitFaults.Fired lost = new CommitFaults.Fired(floe.tables.identifier(ACCOUNTS), Fault.APPLIED_THEN_UNKNOWN);
        faults.arm(lost.table(), lost.fault());
        produce(ACCOUNTS, 50, 0.25);
        awaitTables(ACCOUNTS);
        assertThat(faults.fired()).as("the commit's answer was lost").contains(lost);

        publish(ACCOUNTS);
        assertPublishedOnce(ACCOUNTS, "upsert");
        assertThat(floe.meters
                        .get("floe.tableflow.changes.stream.lag.commits")
                        .tag("topic", ACCOUNTS)
                        .gauge()
                        .value())
                .isZero();
    }

    /**
     * Defect 5: while an upsert table's stream is behind (its agent publishes nothing), two days pass,
     * snapshot expiry and retention run; the stream's own retention hold keeps the log range it has still
     * to replay, and snapshot expiry the snapshot it replays from, so it catches up without halting, and
     * retention moves on once it has.
     */
    @Test
    void retentionKeepsTheLogAnUpsertStreamThatIsBehindStillReplays() throws Exception {
        String hour = String.valueOf(Duration.ofHours(1).toMillis());
        createTopic(
                ACCOUNTS,
                "upsert",
                changes(ACCOUNTS),
                Map.of("retention.ms", hour, "floe.tableflow.snapshot.retention.ms", hour));
        produce(ACCOUNTS, 100, 0.0);
        publish(ACCOUNTS);
        Map<Integer, Long> published = watermark(ACCOUNTS);

        stopJobs();
        jobs = floe.tableJobs(dataDir.resolve("spool-" + spools++), CommitFollower.NONE); // the table goes on alone
        produce(ACCOUNTS, 100, 0.3);
        awaitTables(ACCOUNTS);
        clock.step(Duration.ofDays(2));
        produce(ACCOUNTS, 20, 0.3); // a round two days on, and the table's maintenance expires snapshots
        awaitTables(ACCOUNTS);
        assertThat(ProducedLog.commits(floe.tables.load(ACCOUNTS).orElseThrow()))
                .as("the snapshot the stream replays from is kept")
                .anyMatch(commit -> commit.getValue().nextOffsets().equals(published));
        retention().run(clock.instant());
        assertThat(logStarts(ACCOUNTS))
                .as("held at what the change topic published, not at the table's watermark")
                .isEqualTo(published);
        jobs.releaseAll();

        streams = floe.changeStreams(UnaryOperator.identity());
        jobs = floe.tableJobs(dataDir.resolve("spool-" + spools++), streams);
        publish(ACCOUNTS);
        assertPublishedOnce(ACCOUNTS, "upsert", false); // the earliest commits were expired: their ids are gone
        assertThat(floe.meters
                        .find("floe.tableflow.changes.stream.failures")
                        .tag("topic", ACCOUNTS)
                        .tag("reason", "halted")
                        .counter())
                .as("never halted")
                .isNull();
        retention().run(clock.instant());
        assertThat(logStarts(ACCOUNTS))
                .as("once published, retention passes the range")
                .isEqualTo(watermark(ACCOUNTS));
    }

    /**
     * Defect 5, the bound: a stream that cannot publish (here: Kafka never reachable) holds the log for
     * the hold timeout, then gives the hold up, so retention is not stopped for good.
     */
    @Test
    void aStreamStuckPastTheHoldTimeoutLetsRetentionGo() throws Exception {
        createTopic(ACCOUNTS, "upsert", changes(ACCOUNTS));
        produce(ACCOUNTS, 100, 0.0);
        publish(ACCOUNTS);
        Map<Integer, Long> published = watermark(ACCOUNTS);

        stopJobs();
        startJobs(config -> config.withBootstrap(java.util.Optional::empty));
        produce(ACCOUNTS, 100, 0.3);
        awaitTables(ACCOUNTS);
        assertThat(floe.metadata.retentionHolds(ACCOUNTS))
                .as("held while stuck")
                .isEqualTo(published);

        clock.step(ChangeStreamConfig.DEFAULT_HOLD_TIMEOUT.plusMinutes(1));
        pollUntil(
                () -> floe.metadata.retentionHolds(ACCOUNTS).equals(watermark(ACCOUNTS)),
                "only the table's own hold is left");
        assertThat(floe.meters
                        .get("floe.tableflow.changes.stream.hold.released")
                        .tag("topic", ACCOUNTS)
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    /**
     * Also fix: an upsert table's initial snapshot goes out in transactions of at most 7 source offsets,
     * resumes after a restart from the position the last one committed, and starts over from the table's
     * current snapshot when the one it was reading is expired; each row of the table is read once per
     * snapshot, rows the gap deleted get a delete, and a replay from the start rebuilds the table.
     */
    @Test
    void anInitialSnapshotIsPublishedInBoundedStepsThatResumeAndRestart() throws Exception {
        stopJobs();
        startJobs(config -> config.withOffsetsPerTransaction(7));
        createTopic(ACCOUNTS, "upsert", "");
        produce(ACCOUNTS, 150, 0.0);
        produce(ACCOUNTS, 100, 0.3);
        awaitTables(ACCOUNTS);
        deleteRecordsBelowTheTable(ACCOUNTS); // the log no longer replays the table: a snapshot is due

        setChangesTopic(ACCOUNTS, changes(ACCOUNTS));
        long first = floe.tables.load(ACCOUNTS).orElseThrow().currentSnapshot().snapshotId();
        pollUntil(() -> committedTransactions() >= 3, "a few steps of the snapshot");
        assertThat(ChangeTopicReads.progress(admin, ACCOUNTS))
                .as("mid-way through the snapshot")
                .isNotEqualTo(watermark(ACCOUNTS));

        // A restart mid-way; meanwhile the table commits again and the snapshot being read is expired.
        stopJobs();
        jobs = floe.tableJobs(dataDir.resolve("spool-" + spools++), CommitFollower.NONE);
        produce(ACCOUNTS, 60, 0.5);
        awaitTables(ACCOUNTS);
        jobs.releaseAll();
        Table table = floe.tables.load(ACCOUNTS).orElseThrow();
        table.expireSnapshots().expireSnapshotId(first).commit();
        startJobs(config -> config.withOffsetsPerTransaction(7));
        publish(ACCOUNTS);

        table = floe.tables.load(ACCOUNTS).orElseThrow();
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> changes = read(ACCOUNTS);
        assertThat(ChangeTopicReads.rebuilt(changes))
                .as("replayed from the start")
                .isEqualTo(ChangeTopicReads.rows(table));
        Map<String, Long> reads = changes.values().stream()
                .flatMap(List::stream)
                .filter(record -> ChangeTopicReads.op(record).equals("r true"))
                .collect(Collectors.groupingBy(
                        record -> new String(record.key(), java.nio.charset.StandardCharsets.UTF_8) + " of "
                                + snapshotIdOf(record),
                        TreeMap::new,
                        Collectors.counting()));
        assertThat(reads.values()).as("each row read once per snapshot").containsOnly(1L);
        long rows = ChangeTopicReads.rows(table).size();
        assertThat(committedTransactions())
                .as("at most 7 source offsets a transaction")
                .isGreaterThanOrEqualTo(rows / 7);

        // On from the snapshot: later changes are published as changes.
        produce(ACCOUNTS, 60, 0.3);
        publish(ACCOUNTS);
        table = floe.tables.load(ACCOUNTS).orElseThrow();
        assertThat(ChangeTopicReads.rebuilt(read(ACCOUNTS))).isEqualTo(ChangeTopicReads.rows(table));
    }

    private static String snapshotIdOf(ConsumerRecord<byte[], byte[]> record) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(record.value())
                    .get("source")
                    .get("snapshot_id")
                    .asText();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void startJobs(UnaryOperator<ChangeStreamConfig> tune) {
        streams = floe.changeStreams(tune);
        jobs = floe.tableJobs(dataDir.resolve("spool-" + spools++), streams);
    }

    /** The agent's Tableflow stops and gives its leases up, as at a restart or a lease move. */
    private void stopJobs() {
        jobs.releaseAll();
        if (streams != null) {
            streams.close();
            streams = null;
        }
        jobs = null;
    }

    /** Polls the table jobs until each topic's table has what was produced and its change topic has the table. */
    private void publish(String... topics) throws Exception {
        pollUntil(
                () -> {
                    for (String topic : topics) {
                        if (!caughtUp(topic)
                                || !ChangeTopicReads.progress(admin, topic).equals(watermark(topic))) {
                            return false;
                        }
                    }
                    return true;
                },
                "the change topics of " + String.join(", ", topics) + " reach their tables");
    }

    /** Polls the table jobs until each topic's table has what was produced. */
    private void awaitTables(String... topics) throws Exception {
        pollUntil(
                () -> {
                    for (String topic : topics) {
                        if (!caughtUp(topic)) {
                            return false;
                        }
                    }
                    return true;
                },
                "the tables of " + String.join(", ", topics) + " catch up");
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private void pollUntil(Condition condition, String what) throws Exception {
        Instant deadline = Instant.now().plus(WAIT);
        while (true) {
            jobs.poll();
            if (condition.holds()) {
                return;
            }
            assertThat(Instant.now()).as(what).isBefore(deadline);
            Thread.sleep(5);
        }
    }

    private boolean caughtUp(String topic) {
        return floe.tables
                .load(topic)
                .map(table -> TableflowHarness.reaches(table, floe.stableEnds(topic)))
                .orElse(false);
    }

    private Map<Integer, Long> watermark(String topic) {
        return Watermark.of(floe.tables.load(topic).orElseThrow())
                .map(mark -> new TreeMap<>(mark.nextOffsets()))
                .orElseGet(TreeMap::new);
    }

    private Map<Integer, Long> logStarts(String topic) {
        Map<Integer, Long> starts = new TreeMap<>();
        for (int partition = 0; partition < PARTITIONS; partition++) {
            starts.put(
                    partition,
                    floe.metadata.offsets(new TopicPartition(topic, partition)).logStartOffset());
        }
        return starts;
    }

    private double publishedChanges() {
        return floe.meters
                .get("floe.tableflow.changes.stream.changes")
                .tag("topic", ACCOUNTS)
                .counter()
                .count();
    }

    private double committedTransactions() {
        var counter = floe.meters
                .find("floe.tableflow.changes.stream.transactions")
                .tag("topic", ACCOUNTS)
                .tag("outcome", "committed")
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private Retention retention() {
        return new Retention(
                MaintenanceConfig.DEFAULTS,
                floe.metadata,
                floe.metadata,
                floe.metadata,
                floe.agent.topics().configs(),
                floe.meters);
    }

    /** Every change of the topic's table in its change topic, once, in offset order per partition. */
    private void assertPublishedOnce(String topic, String mode) {
        assertPublishedOnce(topic, mode, true);
    }

    /** As {@link #assertPublishedOnce(String, String)}; {@code commits}: with the commit of each change. */
    private void assertPublishedOnce(String topic, String mode, boolean commits) {
        Table table = floe.tables.load(topic).orElseThrow();
        Offsets end = Offsets.of(Watermark.of(table).orElseThrow().nextOffsets());
        ProducedLog log = produced.get(topic);
        List<String> expected =
                mode.equals("upsert") ? log.full(table, Offsets.START, end) : log.appended(table, Offsets.START, end);
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> changes = read(topic);
        for (int partition = 0; partition < PARTITIONS; partition++) {
            assertThat(ChangeTopicReads.events(changes.get(partition)))
                    .as(
                            "%s partition %d: every change of source partition %d once, in offset order",
                            topic, partition, partition)
                    .containsExactlyElementsOf(ChangeTopicReads.inPartition(expected, partition));
        }
        if (mode.equals("upsert")) {
            assertThat(ChangeTopicReads.rebuilt(changes)).isEqualTo(ChangeTopicReads.rows(table));
        }
    }

    private static List<String> withCommits(List<String> changes, boolean commits) {
        return commits
                ? changes
                : changes.stream()
                        .map(change -> change.replaceAll(" commit=\\S+", ""))
                        .toList();
    }

    private Map<Integer, List<ConsumerRecord<byte[], byte[]>>> read(String topic) {
        return ChangeTopicReads.read(floe.bootstrap(), changes(topic));
    }

    private static String changes(String topic) {
        return topic + ".changes";
    }

    private void produce(String topic, int count, double tombstones) throws Exception {
        produced.computeIfAbsent(topic, name -> new ProducedLog())
                .produce(producer, topic, random, KEYS, count, tombstones, false);
    }

    private void createTopic(String name, String mode, String changes) throws Exception {
        createTopic(name, mode, changes, Map.of());
    }

    private void createTopic(String name, String mode, String changes, Map<String, String> more) throws Exception {
        Map<String, String> configs = new HashMap<>(ProducedLog.tableConfigs(mode));
        configs.put("floe.tableflow.changes.topic", changes);
        // Old snapshots stay, so the expected changes name the commits that made them.
        configs.put(
                "floe.tableflow.snapshot.retention.ms",
                String.valueOf(Duration.ofDays(60).toMillis()));
        configs.putAll(more);
        admin.createTopics(List.of(new NewTopic(name, PARTITIONS, (short) 1).configs(configs)))
                .all()
                .get();
    }

    private void setChangesTopic(String topic, String name) throws Exception {
        admin.incrementalAlterConfigs(Map.of(
                        new ConfigResource(ConfigResource.Type.TOPIC, topic),
                        List.of(new AlterConfigOp(
                                new ConfigEntry("floe.tableflow.changes.topic", name), AlterConfigOp.OpType.SET))))
                .all()
                .get();
    }

    private void deleteRecordsBelowTheTable(String topic) throws Exception {
        Map<org.apache.kafka.common.TopicPartition, RecordsToDelete> below = new HashMap<>();
        watermark(topic)
                .forEach((partition, next) -> below.put(
                        new org.apache.kafka.common.TopicPartition(topic, partition),
                        RecordsToDelete.beforeOffset(next)));
        admin.deleteRecords(below).all().get();
    }
}
