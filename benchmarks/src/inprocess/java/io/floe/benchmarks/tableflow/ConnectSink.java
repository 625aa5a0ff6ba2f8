package io.floe.benchmarks.tableflow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.benchmarks.e2e.ChildProcess;
import io.floe.core.topic.Topic;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Apache Iceberg's Kafka Connect sink materializing the catch-ups' records, for comparison: a Floe in this JVM with
 * its Kafka listener and no table job, and a distributed Connect worker in a child JVM (the classpath of profile
 * {@code connect-runtime}, configured as the connect module's {@code IcebergSinkIT} runs it) whose sink appends to an
 * Iceberg table it creates from the first record, in a JDBC catalog on SQLite. A measured run pauses the connector,
 * produces the records, then resumes it and waits until the table holds them; CPU is the worker process's (every
 * thread: the tasks' consumers and writers, the commit coordinator, Connect's own threads, GC and JIT), read from
 * the OS through {@link ProcessHandle}.
 */
final class ConnectSink implements AutoCloseable {

    /**
     * One measured run.
     *
     * @param workerCpuSeconds CPU time of the worker process
     * @param agentCpuSeconds CPU time of this JVM less the driver's thread: the agent serving the worker's fetches,
     *     group and transaction requests
     */
    record Run(long records, long batchBytes, double seconds, double workerCpuSeconds, double agentCpuSeconds,
            int snapshots, double loadBefore) {

        double recordsPerCpuSecond() {
            return records / workerCpuSeconds;
        }

        double megabytesPerCpuSecond() {
            return batchBytes / 1e6 / workerCpuSeconds;
        }

        String line() {
            return String.format(Locale.ROOT, "connect sink records=%d batchMB=%.1f seconds=%.2f records/s=%.0f"
                            + " workerCpuSeconds=%.2f records per worker CPU-second=%.0f MB/s per worker CPU-second=%.1f"
                            + " agentCpuSeconds=%.2f snapshots=%d load=%.2f",
                    records, batchBytes / 1e6, seconds, records / seconds, workerCpuSeconds, recordsPerCpuSecond(),
                    megabytesPerCpuSecond(), agentCpuSeconds, snapshots, loadBefore);
        }
    }

    private static final String TOPIC = "bench";
    private static final String CONTROL_TOPIC = "control-iceberg";
    private static final String CONNECTOR = "iceberg-sink";
    private static final TableIdentifier TABLE = TableIdentifier.of("floe", TOPIC);
    private static final Duration WAIT = Duration.ofMinutes(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final InProcessFloe floe;
    private final Topic topic;
    private final ChildProcess worker;
    private final URI rest;
    private final Catalog catalog; // a JdbcCatalog: closeable
    private final long keySpace;
    private final HttpClient http = HttpClient.newHttpClient();
    private long rows;

    private ConnectSink(InProcessFloe floe, Topic topic, ChildProcess worker, URI rest, Catalog catalog,
            long keySpace) {
        this.floe = floe;
        this.topic = topic;
        this.worker = worker;
        this.rest = rest;
        this.catalog = catalog;
        this.keySpace = keySpace;
    }

    /**
     * Starts Floe and the worker with the sink on a topic of {@code partitions} partitions, {@code tasks} tasks and
     * a commit interval of {@code commitIntervalMs}, then materializes {@code warmup} records unmeasured.
     */
    static ConnectSink start(String classpath, int partitions, long keySpace, long commitIntervalMs, int tasks,
            long warmup) throws Exception {
        InProcessFloe floe = InProcessFloe.start(false);
        String bootstrap = floe.listen();
        Topic topic = floe.createTopic(TOPIC, partitions, Map.of());
        floe.createTopic(CONTROL_TOPIC, 1, Map.of()); // the sink does not create its control topic
        Catalog catalog = CatalogUtil.buildIcebergCatalog("floe", catalogProperties(floe.dir()), new Configuration());
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("floe"));
        int port = freePort();
        ChildProcess worker = ChildProcess.start("the Connect worker", ChildProcess.javaCommand(classpath,
                        List.of("-Xmx1g", "-XX:+UseG1GC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
                        "org.apache.kafka.connect.cli.ConnectDistributed",
                        List.of(workerProperties(floe.dir(), bootstrap, port).toString())),
                Files.createTempFile("floe-bench-connect-worker", ".log"), Map.of());
        ConnectSink sink = new ConnectSink(floe, topic, worker, URI.create("http://127.0.0.1:" + port), catalog,
                keySpace);
        sink.awaitStatus("/connectors", body -> true);
        sink.put("/connectors/" + CONNECTOR + "/config", JSON.writeValueAsString(
                connectorConfig(floe.dir(), tasks, commitIntervalMs)));
        sink.awaitTasks(tasks, "RUNNING");
        sink.measure(warmup);
        return sink;
    }

    /**
     * Materializes records 0 to {@code records - 1} (the catch-ups' records) once more and measures it. The connector
     * is paused before and after, so that between runs the worker sends the agent nothing but heartbeats.
     */
    Run measure(long records) throws Exception {
        pause();
        long bytes = floe.produce(topic, 0, records, id -> EventRecords.key(id, keySpace));
        rows += records;
        double loadBefore = Cpu.loadValue();
        long worker0 = workerCpuNanos();
        long process0 = Cpu.processNanos();
        long driver0 = Cpu.currentThreadNanos();
        long start = System.nanoTime();
        put("/connectors/" + CONNECTOR + "/resume", "");
        int snapshots = awaitRows(rows);
        long end = System.nanoTime();
        long worker1 = workerCpuNanos();
        long process = Cpu.processNanos() - process0 - (Cpu.currentThreadNanos() - driver0);
        pause();
        return new Run(records, bytes, (end - start) / 1e9, (worker1 - worker0) / 1e9, process / 1e9, snapshots,
                loadBefore);
    }

    /** The worker's CPU per second of wall time while its connector runs with nothing to read. */
    double idleCpuPerSecond(Duration window) throws Exception {
        put("/connectors/" + CONNECTOR + "/resume", "");
        awaitTasks(-1, "RUNNING");
        long cpu0 = workerCpuNanos();
        long start = System.nanoTime();
        Thread.sleep(window.toMillis());
        return (workerCpuNanos() - cpu0) / ((System.nanoTime() - start) / 1e9) / 1e9;
    }

    private void pause() throws Exception {
        put("/connectors/" + CONNECTOR + "/pause", "");
        awaitTasks(-1, "PAUSED");
    }

    private long workerCpuNanos() {
        return ProcessHandle.of(worker.pid())
                .flatMap(handle -> handle.info().totalCpuDuration())
                .orElseThrow(() -> new IllegalStateException("no CPU time for the Connect worker (pid "
                        + worker.pid() + "); the OS does not report it, or the worker exited: see "
                        + worker.logFile()))
                .toNanos();
    }

    /** Waits until the table's current snapshot counts {@code expected} records; returns its snapshot count. */
    private int awaitRows(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            assertWorkerAlive();
            if (catalog.tableExists(TABLE)) {
                Table table = catalog.loadTable(TABLE);
                Snapshot snapshot = table.currentSnapshot();
                if (snapshot != null
                        && Long.parseLong(snapshot.summary().getOrDefault("total-records", "0")) >= expected) {
                    int snapshots = 0;
                    for (Snapshot ignored : table.snapshots()) {
                        snapshots++;
                    }
                    return snapshots;
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the sink's table did not reach " + expected + " records in " + WAIT
                + "; see " + worker.logFile());
    }

    /** Waits until every task of the connector is in {@code state} ({@code tasks} of them, or any number at -1). */
    private void awaitTasks(int tasks, String state) throws Exception {
        awaitStatus("/connectors/" + CONNECTOR + "/status", body -> {
            JsonNode status = JSON.readTree(body);
            Set<String> states = new HashSet<>();
            states.add(status.path("connector").path("state").asText());
            status.path("tasks").forEach(task -> states.add(task.path("state").asText()));
            if (states.contains("FAILED")) {
                throw new IllegalStateException("the Iceberg sink failed: " + body);
            }
            return states.equals(Set.of(state)) && (tasks < 0 || status.path("tasks").size() == tasks);
        });
    }

    private interface BodyCheck {
        boolean test(String body) throws IOException;
    }

    private void awaitStatus(String path, BodyCheck check) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            assertWorkerAlive();
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(rest.resolve(path)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                last = response.statusCode() + " " + response.body();
                if (response.statusCode() == 200 && check.test(response.body())) {
                    return;
                }
            } catch (ConnectException e) {
                last = e.toString(); // the worker's REST API is not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("GET " + path + " not as expected in " + WAIT + "; last: " + last + "; see "
                + worker.logFile());
    }

    private void put(String path, String body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(rest.resolve(path))
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("PUT " + path + ": " + response.statusCode() + " " + response.body());
        }
    }

    private void assertWorkerAlive() {
        if (!worker.isAlive()) {
            throw new IllegalStateException("the Connect worker exited; see " + worker.logFile());
        }
    }

    private static Map<String, String> catalogProperties(Path dir) {
        return Map.of(
                CatalogProperties.CATALOG_IMPL, "org.apache.iceberg.jdbc.JdbcCatalog",
                CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("connect-catalog.db"),
                CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("connect-warehouse").toUri().toString());
    }

    /** The sink's settings: IcebergSinkIT's, with the table created from the first record as users do. */
    private static Map<String, String> connectorConfig(Path dir, int tasks, long commitIntervalMs) {
        Map<String, String> config = new HashMap<>(Map.of(
                "connector.class", "org.apache.iceberg.connect.IcebergSinkConnector",
                "tasks.max", Integer.toString(tasks),
                "topics", TOPIC,
                "iceberg.tables", TABLE.toString(),
                "iceberg.tables.auto-create-enabled", "true",
                "iceberg.catalog", "floe",
                "iceberg.control.topic", CONTROL_TOPIC,
                "iceberg.control.commit.interval-ms", Long.toString(commitIntervalMs),
                "iceberg.control.commit.timeout-ms", "5000"));
        catalogProperties(dir).forEach((name, value) -> config.put("iceberg.catalog." + name, value));
        return config;
    }

    /** The worker's properties as IcebergSinkIT's ConnectWorker writes them (its comments say why). */
    private static Path workerProperties(Path dir, String bootstrap, int port) throws IOException {
        Properties worker = new Properties();
        worker.put("bootstrap.servers", bootstrap);
        worker.put("group.id", "floe-bench-connect");
        worker.put("listeners", "http://127.0.0.1:" + port);
        worker.put("rest.advertised.host.name", "127.0.0.1");
        for (String storage : List.of("config", "offset", "status")) {
            worker.put(storage + ".storage.topic", "floe-bench-connect-" + storage);
            worker.put(storage + ".storage.replication.factor", "1");
        }
        worker.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        worker.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        worker.put("value.converter.schemas.enable", "false");
        worker.put("plugin.discovery", "service_load");
        worker.put("offset.flush.interval.ms", "1000");
        Path file = dir.resolve("connect-worker.properties");
        try (OutputStream out = Files.newOutputStream(file)) {
            worker.store(out, "Kafka Connect worker against Floe");
        }
        return file;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            worker.stop(Duration.ofSeconds(10));
        } finally {
            try {
                ((AutoCloseable) catalog).close();
            } finally {
                floe.close();
            }
        }
    }
}
