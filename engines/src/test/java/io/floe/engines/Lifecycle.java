package io.floe.engines;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.engines.Workload.Change;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.assertj.core.api.SoftAssertions;

/**
 * One table driven through what happens to tables (rounds of records, a grown schema, deletes, an agent
 * killed mid-round, a compaction, snapshot expiry), read after each step by the engines users read it
 * with: Spark's Iceberg runtime through the agent's REST catalog, delta-spark and Delta Kernel by the
 * table's location. Each reader's rows must equal, by value, the rows the produced records imply.
 * Every step first waits until the table reached its state and the Delta log mirrors the table's
 * current snapshot, then reads with each engine once.
 */
final class Lifecycle implements AutoCloseable {

    private static final int PARTITIONS = 2;

    private final Workload workload;
    private final AgentProcess agent;
    private final SparkSession spark;
    private final DeltaReader kernel;
    private final TableWatch table;
    private final TopicWriter topic;
    private boolean grown;
    /** When the current step began (for the timings each step prints). */
    private long stepStarted = System.nanoTime();

    private Lifecycle(Workload workload, AgentProcess agent, SparkSession spark, DeltaReader kernel) {
        this.workload = workload;
        this.agent = agent;
        this.spark = spark;
        this.kernel = kernel;
        this.table = new TableWatch(agent, workload.topic());
        this.topic = new TopicWriter(agent.bootstrap(), workload.topic());
    }

    /**
     * Creates the workload's topic as a Delta-published table, maintenance off until the compaction step
     * turns it on (so that the steps before it meet the files their rounds wrote).
     */
    static Lifecycle create(Workload workload, AgentProcess agent, SparkSession spark, DeltaReader kernel)
            throws Exception {
        Map<String, String> configs = new HashMap<>(Map.of(
                "floe.tableflow.enabled", "true", "floe.tableflow.format", "json",
                "floe.tableflow.schema", workload.schema(), "floe.tableflow.commit.interval.ms", "200",
                "floe.tableflow.delta.enabled", "true", "floe.tableflow.maintenance.enabled", "false"));
        configs.putAll(workload.configs());
        try (Admin admin = admin(agent)) {
            admin.createTopics(List.of(new NewTopic(workload.topic(), PARTITIONS, (short) 1).configs(configs)))
                    .all().get(60, TimeUnit.SECONDS);
        }
        return new Lifecycle(workload, agent, spark, kernel);
    }

    /** Rounds of records, each wave committed by its own round (so the table has a file per wave). */
    void appends(int waves) throws Exception {
        for (int i = 0; i < waves; i++) {
            topic.send(workload.wave(grown));
            table.awaitWatermark("appends", topic.ends());
        }
        assertThat(TableWatch.summary(table.table().currentSnapshot(), "total-data-files"))
                .as("data files after %s rounds", waves).isGreaterThanOrEqualTo(waves);
        readersAgree("appends");
    }

    /**
     * The declared schema gains a field (AlterConfigs, as users change it): the next round widens the
     * table, its rows carry the field and the older rows read it as null in every engine.
     */
    void growSchema() throws Exception {
        alter(Map.of("floe.tableflow.schema", workload.grownSchema()));
        grown = true;
        topic.send(workload.wave(true));
        Table widened = table.awaitWatermark("schema growth", topic.ends());
        assertThat(widened.schema().columns()).extracting(Types.NestedField::name)
                .containsAll(workload.columns(true));
        readersAgree("schema growth");
    }

    /** A wave of tombstones (upsert tables only): the keys' rows are gone, hidden by deletion vectors. */
    void deletes(List<Change> tombstones) throws Exception {
        topic.send(tombstones);
        Table deleted = table.awaitWatermark("deletes", topic.ends());
        assertThat(TableWatch.summary(deleted.currentSnapshot(), "total-position-deletes"))
                .as("rows hidden by deletion vectors").isPositive();
        readersAgree("deletes");
    }

    /**
     * Waves of records are produced without pause while the agent is killed (SIGKILL) as soon as a
     * round begins writing a file, that is with a round in flight; the agent is started again on the
     * same data directory and the producer goes on. Every record the producer was told is stored is in
     * the table once, in every engine.
     */
    void crashMidRound() throws Exception {
        Path spool = agent.spoolDirectory();
        Files.createDirectories(spool);
        long before = table.table().currentSnapshot().snapshotId();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger waves = new AtomicInteger();
        ExecutorService producing = Executors.newSingleThreadExecutor();
        Instant killedAt;
        try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
            spool.register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
            Future<?> sending = producing.submit(() -> {
                while (!stop.get()) {
                    topic.send(workload.wave(grown));
                    waves.incrementAndGet();
                }
                return null;
            });
            String file = awaitNewFile(watcher, sending);
            assertThat(agent.kill()).as("the agent's exit, killed while a round wrote %s", file)
                    .isEqualTo(AgentProcess.KILLED);
            killedAt = Instant.now();
            int wavesAtKill = waves.get();
            agent.start();
            // The wave the kill interrupted completes, and a whole one after it.
            table.await("two more waves acknowledged after the restart", () -> {
                if (sending.isDone()) {
                    sending.get();
                }
                table.saw(waves.get() + " waves acknowledged, " + wavesAtKill + " at the kill");
                return waves.get() >= wavesAtKill + 2 ? Optional.of(true) : Optional.empty();
            });
            stop.set(true);
            sending.get(60, TimeUnit.SECONDS);
        } finally {
            producing.shutdownNow();
        }
        Table recovered = table.awaitWatermark("crash", topic.ends());
        // The round that had begun writing a file was killed before its commit: every snapshot since the
        // step began was committed after the kill, by the restarted agent.
        List<Snapshot> since = new ArrayList<>();
        for (Snapshot snapshot : TableWatch.ancestors(recovered)) {
            if (snapshot.snapshotId() == before) {
                break;
            }
            since.add(snapshot);
        }
        assertThat(since).as("snapshots of this step").isNotEmpty()
                .hasSizeLessThan(TableWatch.ancestors(recovered).size())
                .allMatch(snapshot -> snapshot.timestampMillis() > killedAt.toEpochMilli(), "committed after the kill");
        readersAgree("crash");
    }

    /** Maintenance turned on with a small compaction trigger and interval: a compaction runs. */
    void compaction() throws Exception {
        Snapshot before = table.table().currentSnapshot();
        long files = TableWatch.summary(before, "total-data-files");
        long deletes = TableWatch.summary(before, "total-position-deletes");
        alter(Map.of("floe.tableflow.maintenance.enabled", "true", "floe.tableflow.maintenance.interval.ms", "1000",
                "floe.tableflow.compaction.trigger.files", "2"));
        Snapshot compacted = table.await("a compaction as the current snapshot",
                t -> DataOperations.REPLACE.equals(t.currentSnapshot().operation())).currentSnapshot();
        assertThat(TableWatch.summary(compacted, "total-data-files")).as("data files after compaction")
                .isLessThan(files);
        if (deletes > 0) {
            assertThat(TableWatch.summary(compacted, "total-position-deletes")).as("rows hidden after compaction")
                    .isLessThan(deletes);
        }
        readersAgree("compaction");
        assertThat(table.deltaLog()).as("a Delta commit removes the compacted files without a data change")
                .containsPattern("\"remove\":\\{[^\\n]*\"dataChange\":false");
    }

    /**
     * A short snapshot retention and one more round of new rows: every snapshot before the step
     * expires, the compaction's among them, and with it go the files the compaction replaced (Iceberg
     * deletes a file once the snapshot that removed it expires), while the compaction's own files,
     * which the expired snapshots and the current one share, stay. Every engine still reads the table.
     */
    void snapshotExpiry() throws Exception {
        Table current = table.table();
        Set<Long> older = new TreeSet<>();
        Set<Path> replaced = new TreeSet<>();
        for (Snapshot snapshot : current.snapshots()) {
            older.add(snapshot.snapshotId());
            replaced.addAll(TableWatch.files(current, snapshot));
        }
        Set<Path> compacted = TableWatch.files(current, current.currentSnapshot());
        replaced.removeAll(compacted);
        assertThat(replaced).as("files the compaction replaced").isNotEmpty().allMatch(Files::exists);
        // A target file size of one byte leaves maintenance no file to compact: the round's snapshot keeps
        // the compaction's files, so expiry must tell the files it may delete from those it must keep.
        alter(Map.of("floe.tableflow.snapshot.retention.ms", "1000", "floe.tableflow.target.file.bytes", "1"));
        topic.send(workload.inserts(grown));
        table.awaitWatermark("snapshot expiry", topic.ends());
        Table expired = table.await("the snapshots before the step expired and the files the compaction replaced"
                + " deleted", t -> {
                    Set<Long> left = new TreeSet<>();
                    t.snapshots().forEach(snapshot -> left.add(snapshot.snapshotId()));
                    left.retainAll(older);
                    List<Path> kept = replaced.stream().filter(Files::exists).toList();
                    table.saw("snapshots left " + left + ", replaced files left " + kept);
                    return left.isEmpty() && kept.isEmpty();
                });
        assertThat(TableWatch.files(expired, expired.currentSnapshot()))
                .as("files of the current snapshot: the compaction's and the round's").containsAll(compacted);
        readersAgree("snapshot expiry");
    }

    @Override
    public void close() throws IOException {
        topic.close();
        table.close();
    }

    /**
     * Waits until the Delta log mirrors the table's current snapshot, then reads the table with each
     * engine once: each must return exactly the rows the produced records imply, compared by value.
     */
    private void readersAgree(String step) {
        long started = System.nanoTime();
        String location = table.location();
        Table current = table.await(step + ": the Delta log mirrors the current snapshot",
                t -> kernel.mirroredSequence(location).equals(Optional.of(t.currentSnapshot().sequenceNumber())));
        long mirrored = System.nanoTime();
        List<String> columns = workload.columns(grown);
        List<String> expected = workload.expectedRows(topic.produced(), columns);
        String name = "floe.floe." + workload.topic();
        SoftAssertions softly = new SoftAssertions();
        compare(softly, step + ": " + name + " read by Spark's Iceberg runtime (REST catalog)", expected, () -> {
            spark.catalog().refreshTable(name);
            return sparkRows(spark.table(name).collectAsList(), columns);
        });
        long iceberg = System.nanoTime();
        compare(softly, step + ": " + location + " read by delta-spark", expected,
                () -> sparkRows(spark.read().format("delta").load(location).collectAsList(), columns));
        long deltaSpark = System.nanoTime();
        compare(softly, step + ": " + location + " read by Delta Kernel", expected,
                () -> kernelRows(kernel.rows(location), columns));
        long deltaKernel = System.nanoTime();
        Map<String, Long> fieldIds = new TreeMap<>();
        current.schema().columns().forEach(field -> fieldIds.put(field.name(), (long) field.fieldId()));
        softly.assertThat(kernel.columnIds(location)).as("%s: Delta column ids", step).isEqualTo(fieldIds);
        softly.assertAll();
        System.out.printf("lifecycle %s %s: %d rows; step %d ms, then Delta mirrored in %d ms, read by Spark/Iceberg"
                + " %d ms, delta-spark %d ms, Delta Kernel %d ms%n", workload.topic(), step, expected.size(),
                millis(stepStarted, started), millis(started, mirrored), millis(mirrored, iceberg),
                millis(iceberg, deltaSpark), millis(deltaSpark, deltaKernel));
        stepStarted = System.nanoTime();
    }

    /** Reads with one engine and records, softly, how its rows differ from {@code expected}, or that it failed. */
    private static void compare(SoftAssertions softly, String reader, List<String> expected,
            Callable<List<String>> read) {
        try {
            softly.assertThat(RowText.difference(expected, read.call())).as(reader).isEmpty();
        } catch (Exception e) {
            softly.fail(reader + " failed: " + e, e);
        }
    }

    private static List<String> sparkRows(List<Row> rows, List<String> columns) {
        List<String> texts = new ArrayList<>();
        for (Row row : rows) {
            List<String> names = List.of(row.schema().fieldNames());
            texts.add(RowText.of(columns, name -> names.contains(name) ? row.get(names.indexOf(name)) : RowText.ABSENT));
        }
        return texts;
    }

    private static List<String> kernelRows(List<Map<String, Object>> rows, List<String> columns) {
        List<String> texts = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            texts.add(RowText.of(columns, name -> row.containsKey(name) ? row.get(name) : RowText.ABSENT));
        }
        return texts;
    }

    /** Waits for the first file created in the watched directory while the producer is sending; its name. */
    private String awaitNewFile(WatchService watcher, Future<?> sending) throws Exception {
        Instant deadline = Instant.now().plus(TableWatch.TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            if (sending.isDone()) {
                sending.get();
                throw new AssertionError("the producer stopped before a round began");
            }
            agent.assertAlive();
            WatchKey key = watcher.poll(100, TimeUnit.MILLISECONDS);
            if (key != null) {
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.context() instanceof Path created) {
                        return created.toString();
                    }
                }
                key.reset();
            }
        }
        throw new AssertionError("no round began writing a file in " + TableWatch.TIMEOUT + "\nagent log:\n"
                + agent.logTail());
    }

    private void alter(Map<String, String> configs) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        configs.forEach((name, value) -> ops.add(new AlterConfigOp(new ConfigEntry(name, value),
                AlterConfigOp.OpType.SET)));
        try (Admin admin = admin(agent)) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, workload.topic()), ops))
                    .all().get(60, TimeUnit.SECONDS);
        }
    }

    private static Admin admin(AgentProcess agent) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, agent.bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000));
    }

    private static long millis(long from, long to) {
        return (to - from) / 1_000_000;
    }
}
