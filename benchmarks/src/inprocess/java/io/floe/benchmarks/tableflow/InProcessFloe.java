package io.floe.benchmarks.tableflow;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.kafka.KafkaServer;
import io.floe.kafka.KafkaServerConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.tableflow.Tableflow;
import io.floe.tableflow.TableflowConfig;
import io.floe.tableflow.TableflowMetadata;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.changes.ChangeLimits;
import io.floe.tableflow.changes.ChangeQueries;
import io.floe.tableflow.changes.stream.ChangeStreamConfig;
import io.floe.tableflow.changes.stream.ChangeStreams;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.CommitFollower;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * One Floe in this JVM on embedded stores in a fresh temp directory: an agent (SQLite metadata, a local object
 * store behind a {@link CountingObjectStore}), the Iceberg JDBC catalog in the same database, and Tableflow,
 * polling every 100 ms. {@link #close()} stops them and deletes the directory, so each measured run starts empty.
 */
final class InProcessFloe implements AutoCloseable {

    static final int BATCH_RECORDS = 100;
    /** Tableflow's poll for due tables: often enough for catch-ups that take seconds, cheap when idle. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(100);

    private final Path dir;
    private final MetadataStore metadata;
    private final CountingObjectStore objects;
    private final Agent agent;
    private final TableCatalog tables;
    private final Tableflow tableflow;
    private final ChangeStreams changeStreams;
    private final AtomicReference<String> bootstrap;
    private KafkaServer kafka;

    private InProcessFloe(Path dir, MetadataStore metadata, CountingObjectStore objects, Agent agent,
            TableCatalog tables, Tableflow tableflow, ChangeStreams changeStreams, AtomicReference<String> bootstrap) {
        this.dir = dir;
        this.metadata = metadata;
        this.objects = objects;
        this.agent = agent;
        this.tables = tables;
        this.tableflow = tableflow;
        this.changeStreams = changeStreams;
        this.bootstrap = bootstrap;
    }

    static InProcessFloe start() throws IOException {
        return start(true);
    }

    /**
     * With {@code withTableflow} false the agent runs no table job: a Connect sink's Floe, so that the process
     * holds only the one {@code floe-tableflow-N} thread the catch-ups measure.
     */
    static InProcessFloe start(boolean withTableflow) throws IOException {
        return start(withTableflow, false);
    }

    /**
     * With change topics ({@code floe.tableflow.changes.topic}): Tableflow publishes each table's changes through
     * this agent's own Kafka listener, started here, as an agent does ({@code TableflowSetup.changeStreams}).
     */
    static InProcessFloe startWithChangeTopics() throws IOException {
        InProcessFloe floe = start(true, true);
        floe.listen();
        return floe;
    }

    private static InProcessFloe start(boolean withTableflow, boolean withChangeTopics) throws IOException {
        Path dir = Files.createTempDirectory("floe-tableflow-bench");
        MetadataStore metadata = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        CountingObjectStore objects = new CountingObjectStore(new LocalObjectStore(dir.resolve("objects")));
        int kafkaPort = freePort(); // advertised from the start; bound only if listen() is called
        Agent agent = Agent.start(AgentConfig.defaults().withFlush(Duration.ofMillis(20), 8 << 20)
                        .withAdvertised("127.0.0.1", kafkaPort),
                AgentMetadata.of(metadata), objects, new SimpleMeterRegistry(), Clock.systemUTC());
        ObjectLocations locations = new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
        TableCatalog tables = new TableCatalog(IcebergCatalogs.jdbc(
                "jdbc:sqlite:" + dir.resolve("metadata.db").toAbsolutePath(), null, null,
                locations.root() + "/tables", new ObjectStoreFileIO(objects, locations, dir.resolve("spool"))), "floe");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        AtomicReference<String> bootstrap = new AtomicReference<>();
        ChangeStreams changeStreams = !withChangeTopics ? null : new ChangeStreams(
                ChangeStreamConfig.defaults(() -> Optional.ofNullable(bootstrap.get()), "bench", "bench"),
                new ChangeQueries(tables, metadata, metadata, new CommittedLog(metadata, objects),
                        ChangeLimits.DEFAULTS, Clock.systemUTC(), meters),
                tables, metadata, Clock.systemUTC(), meters);
        Tableflow tableflow = !withTableflow ? null : Tableflow.start(TableflowConfig.defaults(dir.resolve("spool"))
                        .withPollInterval(POLL_INTERVAL), "bench", TableflowMetadata.of(metadata), objects,
                tables, Clock.systemUTC(), meters, Concurrency.threads(),
                changeStreams == null ? CommitFollower.NONE : changeStreams);
        return new InProcessFloe(dir, metadata, objects, agent, tables, tableflow, changeStreams, bootstrap);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    Path dir() {
        return dir;
    }

    Agent agent() {
        return agent;
    }

    TableCatalog tables() {
        return tables;
    }

    CountingObjectStore objects() {
        return objects;
    }

    /** Starts the agent's Kafka listener on a free loopback port (once); returns its bootstrap address. */
    String listen() {
        if (kafka == null) {
            kafka = KafkaServer.start(KafkaServerConfig.defaults()
                    .withListener("127.0.0.1", agent.config().advertisedPort()), agent);
            bootstrap.set(kafka.host() + ":" + kafka.port());
        }
        return kafka.host() + ":" + kafka.port();
    }

    Topic createTopic(String name, int partitions, Map<String, String> configs) {
        return agent.topics().create(new NewTopic(name, partitions, configs), false);
    }

    /**
     * Produces records {@code first} to {@code first + count - 1} of {@link EventRecords} into {@code topic}, record
     * {@code n} keyed {@code keys.apply(n)}, in batches of at most {@link #BATCH_RECORDS} records of one partition;
     * returns the Kafka batch bytes written.
     */
    long produce(Topic topic, long first, long count, LongFunction<byte[]> keys) {
        int partitions = topic.partitionCount();
        List<List<SimpleRecord>> open = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            open.add(new ArrayList<>(BATCH_RECORDS));
        }
        long bytes = 0;
        List<CompletableFuture<?>> pending = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (long id = first; id < first + count; id++) {
            byte[] key = keys.apply(id);
            int partition = EventRecords.partition(key, partitions);
            open.get(partition).add(new SimpleRecord(now, key, EventRecords.value(id)));
            if (open.get(partition).size() == BATCH_RECORDS) {
                bytes += send(topic, partition, open.get(partition), pending);
            }
            if (pending.size() >= 200) {
                CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
                pending.clear();
            }
        }
        for (int p = 0; p < partitions; p++) {
            if (!open.get(p).isEmpty()) {
                bytes += send(topic, p, open.get(p), pending);
            }
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        return bytes;
    }

    private long send(Topic topic, int partition, List<SimpleRecord> records, List<CompletableFuture<?>> pending) {
        ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE, records.toArray(SimpleRecord[]::new)).buffer();
        int bytes = batch.remaining();
        pending.add(agent.produce().append(topic, partition, batch));
        records.clear();
        return bytes;
    }

    /** The records of {@code topic} its table holds: the sum of the watermark's next offsets. */
    long materialized(String topic) {
        return tables.load(topic).flatMap(Watermark::of)
                .map(mark -> mark.nextOffsets().values().stream().mapToLong(Long::longValue).sum()).orElse(0L);
    }

    /** Waits until the table of {@code topic} holds its first {@code records} records, polling every 50 ms. */
    void awaitMaterialized(String topic, long records) throws InterruptedException {
        while (materialized(topic) < records) {
            Thread.sleep(50);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            // Tableflow and its change producers first, while the listener they publish through still answers.
            if (tableflow != null) {
                tableflow.close();
            }
            if (changeStreams != null) {
                changeStreams.close();
            }
            if (kafka != null) {
                agent.groups().close(); // answers parked JoinGroup requests, as the agent's own shutdown does
                kafka.close();
            }
            tables.close();
            agent.close();
            objects.close();
            metadata.close();
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }
}
