package io.floe.engines;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.engines.Workload.Change;
import io.floe.engines.Workload.Produced;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One table driven through what happens to tables (rounds of records, a grown schema, deletes, an agent
 * killed mid-round, a compaction, snapshot expiry), read after each step by the engines users read it
 * with: Spark's Iceberg runtime through the agent's REST catalog, delta-spark and Delta Kernel by the
 * table's location. Each reader's rows must equal, by value, the rows the produced records imply.
 * Every step first waits until the table reached its state and the Delta log mirrors the table's
 * current snapshot, then reads each engine once.
 */
final class Lifecycle implements AutoCloseable {

    private static final int PARTITIONS = 2;
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Workload workload;
    private final AgentProcess agent;
    private final SparkSession spark;
    private final DeltaReader kernel;
    private final RESTCatalog catalog = new RESTCatalog();
    private final TableIdentifier id;
    private final KafkaProducer<byte[], byte[]> producer;
    /** Every record the log took, in the order their sends completed. */
    private final List<Produced> produced = Collections.synchronizedList(new ArrayList<>());
    private boolean grown;
    private String location;
    private String lastSeen = "nothing yet";
    /** When the current step began (for the timings each step prints). */
    private long stepStarted = System.nanoTime();

    private Lifecycle(Workload workload, AgentProcess agent, SparkSession spark, DeltaReader kernel) {
        this.workload = workload;
        this.agent = agent;
        this.spark = spark;
        this.kernel = kernel;
        this.id = TableIdentifier.of("floe", workload.topic());
        catalog.setConf(new Configuration());
        catalog.initialize("lifecycle", Map.of(CatalogProperties.URI, agent.catalogUri()));
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, agent.bootstrap());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        // Back at once when the agent is: a crash step restarts it within seconds.
        properties.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        properties.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "200");
        this.producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
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
            send(workload.wave(grown));
            awaitCommitted("appends");
        }
        assertThat(currentSummary("total-data-files")).as("data files after %s rounds", waves)
                .isGreaterThanOrEqualTo(waves);
        readersAgree("appends");
    }

    /**
     * The declared schema gains a field (AlterConfigs, as users change it): the next round widens the
     * table, its rows carry the field and the older rows read it as null in every engine.
     */
    void growSchema() throws Exception {
        alter(Map.of("floe.tableflow.schema", workload.grownSchema()));
        grown = true;
        send(workload.wave(true));
        Table table = awaitCommitted("schema growth");
        assertThat(table.schema().columns()).extracting(Types.NestedField::name)
                .containsAll(workload.columns(true));
        readersAgree("schema growth");
    }

    /** A wave of tombstones (upsert tables only): the keys' rows are gone, hidden by deletion vectors. */
    void deletes(List<Change> tombstones) throws Exception {
        send(tombstones);
        awaitCommitted("deletes");
        assertThat(currentSummary("total-position-deletes")).as("rows hidden by deletion vectors").isPositive();
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
        long before = currentSnapshot().snapshotId();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger waves = new AtomicInteger();
        ExecutorService producing = Executors.newSingleThreadExecutor();
        Instant killedAt;
        int wavesAtKill;
        try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
            spool.register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
            Future<?> sending = producing.submit(() -> {
                while (!stop.get()) {
                    send(workload.wave(grown));
                    waves.incrementAndGet();
                }
                return null;
            });
            String file = awaitNewFile(watcher, sending);
            assertThat(agent.kill()).as("the agent's exit, killed while a round wrote %s", file)
                    .isEqualTo(AgentProcess.KILLED);
            killedAt = Instant.now();
            wavesAtKill = waves.get();
            agent.start();
            // The wave the kill interrupted completes, and a whole one after it.
            awaitCondition("two more waves acknowledged after the restart", () -> {
                if (sending.isDone()) {
                    sending.get();
                }
                return waves.get() >= wavesAtKill + 2 ? Optional.of(true) : Optional.empty();
            });
            stop.set(true);
            sending.get(60, TimeUnit.SECONDS);
        } finally {
            producing.shutdownNow();
        }
        Table table = awaitCommitted("crash");
        // The round that had begun writing a file was killed before its commit: every snapshot since the
        // step began was committed after the kill, by the restarted agent.
        List<Snapshot> since = new ArrayList<>();
        for (Snapshot snapshot : ancestors(table)) {
            if (snapshot.snapshotId() == before) {
                break;
            }
            since.add(snapshot);
        }
        assertThat(since).as("snapshots of this step").isNotEmpty().hasSizeLessThan(ancestors(table).size())
                .allMatch(snapshot -> snapshot.timestampMillis() > killedAt.toEpochMilli(), "committed after the kill");
        readersAgree("crash");
    }

    /** Maintenance turned on with a small compaction trigger and interval: a compaction runs. */
    void compaction() throws Exception {
        long files = currentSummary("total-data-files");
        long deletes = currentSummary("total-position-deletes");
        alter(Map.of("floe.tableflow.maintenance.enabled", "true", "floe.tableflow.maintenance.interval.ms", "1000",
                "floe.tableflow.compaction.trigger.files", "2"));
        Table table = awaitTable("a compaction as the current snapshot",
                t -> DataOperations.REPLACE.equals(t.currentSnapshot().operation()));
        assertThat(summary(table.currentSnapshot(), "total-data-files")).as("data files after compaction")
                .isLessThan(files);
        if (deletes > 0) {
            assertThat(summary(table.currentSnapshot(), "total-position-deletes")).as("rows hidden after compaction")
                    .isLessThan(deletes);
        }
        readersAgree("compaction");
        assertThat(deltaLog()).as("a Delta commit removes the compacted files without a data change")
                .containsPattern("\"remove\":\\{[^\\n]*\"dataChange\":false");
    }

    /**
     * A short snapshot retention and one more round: every snapshot before the step expires, the
     * compaction's among them, and with it go the files the compaction replaced (Iceberg deletes a file
     * once the snapshot that removed it expires). Every engine still reads the table: the current
     * Iceberg snapshot and the latest Delta version reference none of them.
     */
    void snapshotExpiry() throws Exception {
        Table table = currentTable();
        Set<Long> older = new HashSet<>();
        Set<Path> replaced = new TreeSet<>();
        for (Snapshot snapshot : table.snapshots()) {
            older.add(snapshot.snapshotId());
            replaced.addAll(files(table, snapshot));
        }
        replaced.removeAll(files(table, table.currentSnapshot()));
        assertThat(replaced).as("files the compaction replaced").isNotEmpty().allMatch(Files::exists);
        alter(Map.of("floe.tableflow.snapshot.retention.ms", "1000"));
        send(workload.wave(grown));
        awaitCommitted("snapshot expiry");
        awaitCondition("the snapshots before the step expired and the files the compaction replaced deleted", () -> {
            Set<Long> left = new TreeSet<>();
            currentTable().snapshots().forEach(snapshot -> left.add(snapshot.snapshotId()));
            left.retainAll(older);
            List<Path> kept = replaced.stream().filter(Files::exists).toList();
            lastSeen = "snapshots left " + left + ", replaced files left " + kept;
            return left.isEmpty() && kept.isEmpty() ? Optional.of(true) : Optional.empty();
        });
        readersAgree("snapshot expiry");
    }

    @Override
    public void close() throws IOException {
        producer.close(Duration.ofSeconds(10));
        catalog.close();
    }

    /**
     * Waits until the Delta log mirrors the table's current snapshot, then reads the table with each
     * engine once: each must return exactly the rows the produced records imply, compared by value.
     */
    private void readersAgree(String step) {
        long started = System.nanoTime();
        Table table = awaitTable(step + ": the Delta log mirrors the current snapshot",
                t -> kernel.mirroredSequence(location()).equals(Optional.of(t.currentSnapshot().sequenceNumber())));
        long mirrored = System.nanoTime();
        List<String> columns = workload.columns(grown);
        List<String> expected = sorted(workload.expectedRows(new ArrayList<>(produced), columns));
        String name = "floe.floe." + workload.topic();
        spark.catalog().refreshTable(name);
        assertThat(sorted(sparkRows(spark.table(name).collectAsList(), columns)))
                .as("%s: %s read by Spark's Iceberg runtime (REST catalog)", step, name).isEqualTo(expected);
        long iceberg = System.nanoTime();
        assertThat(sorted(sparkRows(spark.read().format("delta").load(location()).collectAsList(), columns)))
                .as("%s: %s read by delta-spark", step, location()).isEqualTo(expected);
        long deltaSpark = System.nanoTime();
        assertThat(sorted(kernelRows(kernel.rows(location()), columns)))
                .as("%s: %s read by Delta Kernel", step, location()).isEqualTo(expected);
        long deltaKernel = System.nanoTime();
        Map<String, Long> fieldIds = new TreeMap<>();
        table.schema().columns().forEach(field -> fieldIds.put(field.name(), (long) field.fieldId()));
        assertThat(kernel.columnIds(location())).as("%s: Delta column ids", step).isEqualTo(fieldIds);
        System.out.printf("lifecycle %s %s: %d rows; step %d ms, then Delta mirrored in %d ms, read by Spark/Iceberg"
                + " %d ms, delta-spark %d ms, Delta Kernel %d ms%n", workload.topic(), step, expected.size(),
                millis(stepStarted, started), millis(started, mirrored), millis(mirrored, iceberg),
                millis(iceberg, deltaSpark), millis(deltaSpark, deltaKernel));
        stepStarted = System.nanoTime();
    }

    private static long millis(long from, long to) {
        return (to - from) / 1_000_000;
    }

    private static List<String> sparkRows(List<Row> rows, List<String> columns) {
        List<String> texts = new ArrayList<>();
        for (Row row : rows) {
            texts.add(RowText.of(columns, name -> {
                int index = List.of(row.schema().fieldNames()).indexOf(name);
                return index < 0 ? RowText.ABSENT : row.get(index);
            }));
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

    /** Sends the changes, flushes, and records where each landed; throws when one is not stored. */
    private void send(List<Change> changes) throws Exception {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        for (Change change : changes) {
            byte[] value = change.value() == null ? null : json(change.value()).getBytes(StandardCharsets.UTF_8);
            sends.add(producer.send(new ProducerRecord<>(workload.topic(), change.key().getBytes(StandardCharsets.UTF_8),
                    value)));
        }
        producer.flush();
        for (int i = 0; i < sends.size(); i++) {
            RecordMetadata sent = sends.get(i).get(120, TimeUnit.SECONDS);
            produced.add(new Produced(sent.partition(), sent.offset(), Instant.ofEpochMilli(sent.timestamp()),
                    changes.get(i)));
        }
    }

    private static String json(Map<String, Object> value) {
        return value.entrySet().stream().map(field -> "\"" + field.getKey() + "\": " + (field.getValue() instanceof String
                ? "\"" + field.getValue() + "\"" : field.getValue())).collect(Collectors.joining(", ", "{", "}"));
    }

    /** Waits until the table's watermark covers every record produced so far. */
    private Table awaitCommitted(String step) {
        Map<Integer, Long> ends = new TreeMap<>();
        synchronized (produced) {
            produced.forEach(record -> ends.merge(record.partition(), record.offset() + 1, Math::max));
        }
        return awaitTable(step + ": the table's watermark reaches the produced records' " + ends, table -> {
            Map<Integer, Long> watermark = watermark(table);
            return ends.entrySet().stream()
                    .allMatch(end -> watermark.getOrDefault(end.getKey(), -1L) >= end.getValue());
        });
    }

    /** The next offset per partition of the newest snapshot, from the current back, that carries Floe's watermark. */
    private static Map<Integer, Long> watermark(Table table) {
        for (Snapshot snapshot : ancestors(table)) {
            String text = snapshot.summary().get("floe.watermark");
            if (text != null) {
                try {
                    Map<Integer, Long> next = new TreeMap<>();
                    JsonNode offsets = JSON.readTree(text).path("next");
                    offsets.fieldNames().forEachRemaining(p -> next.put(Integer.parseInt(p), offsets.get(p).asLong()));
                    return next;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return Map.of();
    }

    private static List<Snapshot> ancestors(Table table) {
        List<Snapshot> ancestors = new ArrayList<>();
        for (Snapshot snapshot = table.currentSnapshot(); snapshot != null;
                snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId())) {
            ancestors.add(snapshot);
        }
        return ancestors;
    }

    /** Waits for the first file created in the watched directory while the producer is sending; its name. */
    private String awaitNewFile(WatchService watcher, Future<?> sending) throws Exception {
        Instant deadline = Instant.now().plus(STEP_TIMEOUT);
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
        throw new AssertionError("no round began writing a file in " + STEP_TIMEOUT + "\nagent log:\n"
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

    private Table currentTable() {
        return catalog.loadTable(id);
    }

    private Snapshot currentSnapshot() {
        return currentTable().currentSnapshot();
    }

    private long currentSummary(String property) {
        return summary(currentSnapshot(), property);
    }

    private static long summary(Snapshot snapshot, String property) {
        return Long.parseLong(snapshot.summary().getOrDefault(property, "0"));
    }

    /** The table's location, as the REST catalog gives it; its Delta log is in {@code _delta_log/} below. */
    private String location() {
        if (location == null) {
            location = currentTable().location();
        }
        return location;
    }

    private Path localPath(String fileLocation) {
        return Path.of(URI.create(fileLocation.replaceFirst("^file:/+", "file:///")));
    }

    /** The data files and deletion vector files of {@code snapshot}. */
    private Set<Path> files(Table table, Snapshot snapshot) throws IOException {
        Set<Path> files = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                files.add(localPath(task.file().location()));
                task.deletes().forEach(delete -> files.add(localPath(delete.location())));
            }
        }
        return files;
    }

    /** The text of the Delta log's commit files. */
    private String deltaLog() throws IOException {
        StringBuilder text = new StringBuilder();
        try (Stream<Path> files = Files.list(localPath(location()).resolve("_delta_log"))) {
            for (Path file : files.sorted().toList()) {
                if (file.toString().endsWith(".json")) {
                    text.append(Files.readString(file, StandardCharsets.UTF_8));
                }
            }
        }
        return text.toString();
    }

    private Table awaitTable(String what, Predicate<Table> reached) {
        return awaitCondition(what, () -> {
            Table table = currentTable();
            if (table.currentSnapshot() != null && reached.test(table)) {
                return Optional.of(table);
            }
            lastSeen = table.currentSnapshot() == null ? "no snapshot"
                    : table.currentSnapshot().operation() + " " + table.currentSnapshot().summary();
            return Optional.empty();
        });
    }

    /** Polls {@code probe} until it answers, at most {@link #STEP_TIMEOUT}; fails with what it saw last. */
    private <T> T awaitCondition(String what, Probe<T> probe) {
        Instant deadline = Instant.now().plus(STEP_TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            agent.assertAlive();
            try {
                Optional<T> answer = probe.poll();
                if (answer.isPresent()) {
                    return answer.get();
                }
            } catch (RuntimeException e) {
                lastSeen = e.toString(); // the agent is starting, or the table or its Delta log is not there yet
            } catch (Exception e) {
                throw new AssertionError(what, e);
            }
            pause();
        }
        throw new AssertionError("not reached in " + STEP_TIMEOUT + ": " + what + "; last seen: " + lastSeen
                + "\nagent log:\n" + agent.logTail());
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static List<String> sorted(List<String> rows) {
        List<String> copy = new ArrayList<>(rows);
        Collections.sort(copy);
        return copy;
    }

    @FunctionalInterface
    private interface Probe<T> {
        Optional<T> poll() throws Exception;
    }
}
