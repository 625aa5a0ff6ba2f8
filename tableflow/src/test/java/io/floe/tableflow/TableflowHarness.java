package io.floe.tableflow;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.Topic;
import io.floe.kafka.KafkaServer;
import io.floe.kafka.KafkaServerConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.changes.ChangeLimits;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.changes.stream.ChangeStreamConfig;
import io.floe.tableflow.changes.stream.ChangeStreams;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.CommitFollower;
import io.floe.tableflow.table.SchemaChange;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.TableJobs;
import io.floe.tableflow.table.Watermark;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** An agent with a Kafka listener and Tableflow running, on embedded stores in one directory. */
final class TableflowHarness implements AutoCloseable {

    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final MetadataStore metadata;
    final ObjectStore objects;
    final Agent agent;
    final KafkaServer server;
    final ObjectStoreFileIO io;
    final Catalog catalog;
    final TableCatalog tables;
    private Tableflow tableflow;
    /** The thread the running Tableflow polls on. */
    private ScheduledExecutorService tableflowThread;
    /** The thread the running Tableflow renews its leases on. */
    private ScheduledExecutorService renewalThread;
    /** What {@link #killTableflow} left behind, as a killed process leaves its connections: closed at the end. */
    private final List<AutoCloseable> killed = new ArrayList<>();
    /** How the change topics are set up; null: none. */
    private UnaryOperator<ChangeStreamConfig> changeTopics;

    private ChangeStreams changeStreams;

    /** The clock of the agent, Tableflow and the change topics. */
    final Clock clock;

    TableflowHarness(Path dataDir) {
        this(dataDir, UnaryOperator.identity());
    }

    /** On {@code clock} (one a test moves). */
    TableflowHarness(Path dataDir, Clock clock) {
        this(dataDir, defaultCatalog(dataDir, UnaryOperator.identity()), clock);
    }

    /** With the Iceberg catalog wrapped by {@code decorate} (a fault-injecting decorator). */
    TableflowHarness(Path dataDir, UnaryOperator<Catalog> decorate) {
        this(dataDir, defaultCatalog(dataDir, decorate), Clock.systemUTC());
    }

    /** With the Iceberg catalog wrapped by {@code decorate}, on {@code clock}. */
    TableflowHarness(Path dataDir, UnaryOperator<Catalog> decorate, Clock clock) {
        this(dataDir, defaultCatalog(dataDir, decorate), clock);
    }

    private static Catalogs defaultCatalog(Path dataDir, UnaryOperator<Catalog> decorate) {
        return (warehouse, io) -> decorate.apply(IcebergCatalogs.jdbc(
                "jdbc:sqlite:" + dataDir.resolve("metadata.db").toAbsolutePath(), null, null, warehouse, io));
    }

    /** Opens the Iceberg catalog of the harness's tables, given their warehouse location and FileIO. */
    @FunctionalInterface
    interface Catalogs {
        Catalog open(String warehouse, ObjectStoreFileIO io);
    }

    /** With the Iceberg catalog {@code catalogs} opens (another database than the metadata store's). */
    TableflowHarness(Path dataDir, Catalogs catalogs) {
        this(dataDir, catalogs, Clock.systemUTC());
    }

    /** With the Iceberg catalog {@code catalogs} opens, on {@code clock}. */
    TableflowHarness(Path dataDir, Catalogs catalogs, Clock clock) {
        this.clock = clock;
        metadata = SqlMetadataStore.openSqlite(dataDir.resolve("metadata.db"));
        objects = new LocalObjectStore(dataDir.resolve("objects"));
        int port = freePort();
        agent = Agent.start(
                AgentConfig.defaults().withAdvertised("127.0.0.1", port).withFlush(Duration.ofMillis(5), 1 << 20),
                AgentMetadata.of(metadata),
                objects,
                meters,
                clock);
        agent.topics().configs().addCheck(Tableflow::validate);
        agent.groups().retainOffsetsOf(ChangeStreams.progressGroups(metadata));
        server = KafkaServer.start(KafkaServerConfig.defaults().withListener("127.0.0.1", port), agent);
        ObjectLocations locations =
                new ObjectLocations("file:" + dataDir.resolve("objects").toAbsolutePath());
        io = new ObjectStoreFileIO(objects, locations, dataDir.resolve("spool"));
        catalog = catalogs.open(locations.root() + "/tables", io);
        tables = new TableCatalog(catalog, TableflowConfig.DEFAULT_NAMESPACE);
        agent.topics().configs().addChangeCheck(new SchemaChange(tables));
    }

    TableflowHarness startTableflow(Path spool) {
        CommitFollower follower = CommitFollower.NONE;
        if (changeTopics != null) {
            changeStreams = changeStreams(changeTopics);
            follower = changeStreams;
        }
        tableflow = Tableflow.start(
                TableflowConfig.defaults(spool).withPollInterval(Duration.ofMillis(50)),
                "agent-1",
                TableflowMetadata.of(metadata),
                objects,
                tables,
                clock,
                meters,
                new Threads(),
                follower);
        return this;
    }

    /**
     * Kills Tableflow as kill -9 kills its agent, wherever it is (a job that {@link CommitFaults#armKill}
     * killed at a commit is already dead), and starts the agent's Tableflow again: a new job with nothing
     * in memory. The dead one gets no further poll, finishes nothing and gives nothing up: its table
     * leases stay taken (the new job, of the same agent id, renews them), its change topic producers
     * stay open with whatever transaction they had begun (the new producers fence them).
     */
    TableflowHarness killTableflow(Path spool) throws InterruptedException {
        tableflowThread.shutdownNow();
        renewalThread.shutdownNow();
        if (!tableflowThread.awaitTermination(10, TimeUnit.SECONDS)
                || !renewalThread.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the killed Tableflow's threads did not stop in 10 s");
        }
        killed.add(tableflow);
        if (changeStreams != null) {
            killed.add(changeStreams);
        }
        tableflow = null;
        changeStreams = null;
        return startTableflow(spool);
    }

    /** Starts Tableflow with change topics, their settings {@code tune}d; a restart keeps them. */
    TableflowHarness startTableflowWithChangeTopics(Path spool, UnaryOperator<ChangeStreamConfig> tune) {
        changeTopics = tune;
        return startTableflow(spool);
    }

    /** Change topics through the harness's listener, their settings {@code tune}d; the caller closes them. */
    ChangeStreams changeStreams(UnaryOperator<ChangeStreamConfig> tune) {
        return new ChangeStreams(
                tune.apply(ChangeStreamConfig.defaults(() -> Optional.of(bootstrap()), "test-cluster", "test")),
                changeQueries(),
                tables,
                metadata,
                clock,
                meters);
    }

    /** Table jobs that a test polls by hand (no Tableflow thread), telling {@code follower} of their rounds. */
    TableJobs tableJobs(Path spool, CommitFollower follower) {
        return tableJobs(spool, follower, UnaryOperator.identity());
    }

    /** As {@link #tableJobs(Path, CommitFollower)}, their settings {@code tune}d. */
    TableJobs tableJobs(Path spool, CommitFollower follower, UnaryOperator<TableflowConfig> tune) {
        return new TableJobs(
                tune.apply(TableflowConfig.defaults(spool)),
                "agent-1",
                TableflowMetadata.of(metadata),
                new CommittedLog(metadata, objects),
                tables,
                clock,
                meters,
                follower);
    }

    /** Change queries over the harness's tables and log. */
    ChangeQueries changeQueries() {
        return new ChangeQueries(
                tables, metadata, metadata, new CommittedLog(metadata, objects), ChangeLimits.DEFAULTS, clock, meters);
    }

    /** Stops Tableflow and starts it again: a new job, with nothing kept in memory from the old one. */
    TableflowHarness restartTableflow(Path spool) {
        tableflow.close();
        tableflow = null;
        closeChangeStreams();
        return startTableflow(spool);
    }

    String bootstrap() {
        return "127.0.0.1:" + server.port();
    }

    /** Waits until the topic's table reaches every partition's last stable offset as of now; fails after {@code timeout}. */
    Table awaitCaughtUp(String topicName, Duration timeout) throws InterruptedException {
        List<Long> ends = stableEnds(topicName);
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            Optional<Table> table = tables.load(topicName);
            if (table.isPresent() && reaches(table.get(), ends)) {
                return table.get();
            }
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("table of " + topicName + " did not catch up with " + ends + " in " + timeout
                        + "; watermark " + table.flatMap(Watermark::of));
            }
            Thread.sleep(20);
        }
    }

    /** A producer of byte arrays to the agent, lingering 5 ms. */
    KafkaProducer<byte[], byte[]> producer() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The table's snapshots that its metadata still holds. */
    static List<Snapshot> snapshots(Table table) {
        List<Snapshot> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshots::add);
        return snapshots;
    }

    /** Every partition's last stable offset now: where a table that has every committed record stands. */
    List<Long> stableEnds(String topicName) {
        Topic topic = metadata.topic(topicName).orElseThrow();
        List<Long> ends = new ArrayList<>();
        for (int p = 0; p < topic.partitionCount(); p++) {
            LogOffsets offsets = metadata.offsets(new TopicPartition(topicName, p));
            ends.add(offsets.lastStableOffset());
        }
        return ends;
    }

    /** Whether the table's watermark is at or past {@code ends} in every partition. */
    static boolean reaches(Table table, List<Long> ends) {
        Optional<Watermark> mark = Watermark.of(table);
        if (mark.isEmpty()) {
            return false;
        }
        for (int p = 0; p < ends.size(); p++) {
            if (mark.get().next(p) < ends.get(p)) {
                return false;
            }
        }
        return true;
    }

    static List<Record> rows(Table table) {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    private void closeChangeStreams() {
        if (changeStreams != null) {
            changeStreams.close();
            changeStreams = null;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Real threads, remembering the schedulers Tableflow runs on, so {@link #killTableflow} can stop them. */
    private final class Threads implements Concurrency {
        private final Concurrency threads = Concurrency.threads();

        @Override
        public ScheduledExecutorService scheduler(String name) {
            ScheduledExecutorService scheduler = threads.scheduler(name);
            if (name.equals("floe-tableflow")) {
                tableflowThread = scheduler;
            } else if (name.equals("floe-tableflow-leases")) {
                renewalThread = scheduler;
            }
            return scheduler;
        }

        @Override
        public ExecutorService pool(String name, int count) {
            return threads.pool(name, count);
        }

        @Override
        public long nanoTime() {
            return threads.nanoTime();
        }

        @Override
        public Clock clock() {
            return threads.clock();
        }

        @Override
        public RandomGenerator random() {
            return threads.random();
        }

        @Override
        public void sleep(Duration duration) throws InterruptedException {
            threads.sleep(duration);
        }
    }

    @Override
    public void close() throws Exception {
        if (tableflow != null) {
            tableflow.close();
        }
        closeChangeStreams();
        for (AutoCloseable dead : killed) {
            dead.close();
        }
        server.close();
        agent.close();
        if (catalog instanceof AutoCloseable closeable) {
            closeable.close();
        }
        metadata.close();
        objects.close();
    }
}
