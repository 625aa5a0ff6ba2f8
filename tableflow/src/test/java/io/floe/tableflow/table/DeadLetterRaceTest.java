package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.config.TableSettings;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.source.CommittedLog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two writers of one topic's tables (a zombie whose lease ran out and the new owner) when the topic
 * has no dead-letter table yet: writer A decides which dead letters to write from the table as it was
 * when its round began (none), and writer B creates the dead-letter table and commits its round while
 * A reads. A must not then write the same dead letters into the table B created.
 */
class DeadLetterRaceTest {

    private static final String TOPIC = "orders";
    /** Both writers under one lease epoch: the race is the dead-letter table's, not the lease's. */
    private static final LeaseFence FENCE = new LeaseFence("tableflow/" + TOPIC, 1);

    private static final String SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}}," + "\"required\":[\"id\"]}";

    @TempDir
    Path dir;

    private MetadataStore metadata;
    private LocalObjectStore objects;
    private Agent agent;
    private final List<AutoCloseable> catalogs = new ArrayList<>();

    @BeforeEach
    void open() {
        metadata = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        objects = new LocalObjectStore(dir.resolve("objects"));
        agent = Agent.start(
                AgentConfig.defaults().withFlush(Duration.ofMillis(5), 1 << 20),
                AgentMetadata.of(metadata),
                objects,
                new SimpleMeterRegistry(),
                Clock.systemUTC());
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable catalog : catalogs) {
            catalog.close();
        }
        agent.close();
        metadata.close();
        objects.close();
    }

    @Test
    void aWriterDoesNotWriteDeadLettersIntoADeadLetterTableCreatedDuringItsRound() {
        Map<String, String> configs = Map.of(
                "floe.tableflow.enabled", "true", "floe.tableflow.format", "json", "floe.tableflow.schema", SCHEMA);
        Topic topic = agent.topics().create(new NewTopic(TOPIC, 1, configs), false);
        TableSettings settings = TableSettings.from(configs);
        produce(topic, "{\"id\": 1}", "not json 2", "{\"id\": 3}", "not json 4");

        TableCatalog tablesB = new TableCatalog(catalog(null), "floe");
        TableJob writerB = job(tablesB);
        AtomicInteger deadLetterLoads = new AtomicInteger();
        TableCatalog tablesA = new TableCatalog(
                catalog(identifier -> {
                    // The first load of the dead-letter table is at the start of A's round (none yet); the
                    // second is A's first dead letter: B's whole round happens just before it.
                    if (identifier.namespace().toString().endsWith("_dead_letters")
                            && deadLetterLoads.incrementAndGet() == 2) {
                        writerB.run(topic, settings, FENCE);
                    }
                }),
                "floe");
        TableJob writerA = job(tablesA);

        Throwable failure = catchThrowable(() -> writerA.run(topic, settings, FENCE));
        assertThat(deadLetterLoads).hasValue(2);
        assertThat(rows(tablesB.loadDeadLetters(TOPIC).orElseThrow()))
                .extracting(row -> StandardCharsets.UTF_8
                        .decode(((ByteBuffer) row.getField(Rows.DEAD_VALUE)).duplicate())
                        .toString())
                .containsExactlyInAnyOrder("not json 2", "not json 4");
        assertThat(rows(tablesB.load(TOPIC).orElseThrow()))
                .extracting(row -> (Long) row.getField("id"))
                .containsExactlyInAnyOrder(1L, 3L);
        assertThat(failure)
                .isInstanceOf(CommitFailedException.class)
                .hasMessageContaining("changed since the round began");
    }

    private TableJob job(TableCatalog tables) {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        return new TableJob(
                TOPIC,
                tables,
                metadata,
                metadata,
                new CommittedLog(metadata, objects),
                Clock.systemUTC(),
                new TableMetrics(meters, TOPIC),
                256L << 20,
                new KeyIndexBudget(256L << 20, meters));
    }

    /** Hook: runs before each loadTable of the catalog. */
    private interface BeforeLoad {
        void loading(TableIdentifier identifier);
    }

    /** The shared JDBC catalog, with {@code hook} run before every table load (null: none). */
    private Catalog catalog(BeforeLoad hook) {
        ObjectLocations locations =
                new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
        Catalog jdbc = IcebergCatalogs.jdbc(
                "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath(),
                null,
                null,
                locations.root() + "/tables",
                new ObjectStoreFileIO(objects, locations, dir.resolve("spool")));
        catalogs.add((AutoCloseable) jdbc);
        if (hook == null) {
            return jdbc;
        }
        return (Catalog) Proxy.newProxyInstance(
                Catalog.class.getClassLoader(),
                new Class<?>[] {Catalog.class, SupportsNamespaces.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("loadTable") && args.length == 1) {
                        hook.loading((TableIdentifier) args[0]);
                    }
                    try {
                        return method.invoke(jdbc, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private void produce(Topic topic, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        agent.produce()
                .append(
                        topic,
                        0,
                        MemoryRecords.withRecords(Compression.NONE, records).buffer())
                .join();
    }

    private static List<Record> rows(Table table) {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }
}
