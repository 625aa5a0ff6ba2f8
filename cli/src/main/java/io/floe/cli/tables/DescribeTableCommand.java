package io.floe.cli.tables;

import io.floe.cli.groups.Table;
import io.floe.core.concurrency.Concurrency;
import io.floe.tableflow.rest.RemoteTable;
import io.floe.tableflow.rest.RemoteTables;
import io.floe.tableflow.table.Watermark;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code floe tables describe TOPIC}: the table as the agent's Iceberg REST catalog shows it (location,
 * snapshots, files, rows, the watermark in its current snapshot) against the topic's end offsets: the
 * offsets materialized and the lag per partition, and the dead letters.
 */
@Command(
        name = "describe",
        description = "Shows a topic's table: snapshots, files, rows, offsets materialized,"
                + " lag per partition, dead letters.")
final class DescribeTableCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private TablesOptions options;

    private static final int DEFAULT_HTTP_PORT = AgentHttp.DEFAULT_PORT;

    @Option(
            names = "--http",
            paramLabel = "HOST:PORT",
            description = "The agent's HTTP endpoint (its --http-listen), which serves the Iceberg REST catalog at"
                    + " /iceberg. Default: the --bootstrap host, port " + DEFAULT_HTTP_PORT + ".")
    private String http;

    @Option(
            names = "--namespace",
            paramLabel = "NAME",
            defaultValue = "floe",
            description = "The tables' Iceberg namespace. Default: ${DEFAULT-VALUE}.")
    private String namespace;

    @Parameters(paramLabel = "TOPIC", description = "The topic.")
    private String topic;

    @Override
    public Integer call() {
        String uri = "http://" + httpEndpoint() + "/iceberg";
        return options.run("describe", spec.commandLine().getErr(), admin -> {
            try (RemoteTables catalog = new RemoteTables(uri)) {
                describe(admin, catalog);
            } catch (RemoteTables.UnreachableCatalogException e) {
                throw new TablesOptions.CommandFailure("cannot reach the agent's Iceberg REST catalog at " + uri
                        + (http == null
                                ? " (the --bootstrap host and the default HTTP port " + DEFAULT_HTTP_PORT + ")"
                                : "")
                        + ": " + e.getMessage() + "; give the agent's HTTP endpoint, its --http-listen,"
                        + " with --http HOST:PORT");
            }
        });
    }

    /** {@code --http}, or the host of {@code --bootstrap} with the default HTTP port. */
    private String httpEndpoint() {
        return AgentHttp.endpoint(http, options.connection);
    }

    private void describe(Admin admin, RemoteTables catalog) throws ExecutionException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        RemoteTable table = catalog.describe(namespace, topic)
                .orElseThrow(() -> new TablesOptions.CommandFailure("topic '" + topic + "' has no table " + namespace
                        + "." + topic + " yet (is Tableflow enabled for it? floe tables list)"));
        out.println("Table: " + namespace + "." + topic);
        out.println("Location: " + table.location());
        out.println("Partitioning: " + table.partitioning());
        out.println("Snapshots: " + table.snapshots());
        if (table.current().isEmpty()) {
            out.println("Current snapshot: none (nothing materialized yet)");
        } else {
            RemoteTable.CurrentSnapshot current = table.current().get();
            Instant at = current.committedAt();
            out.println("Current snapshot: " + current.id() + ", committed " + at + " ("
                    + Duration.between(at, Concurrency.threads().clock().instant())
                            .toSeconds() + " s ago)");
            out.println(
                    "Data files: " + current.dataFiles() + ", rows: " + current.rows() + ", bytes: " + current.bytes());
        }
        table.stalled().ifPresent(stalled -> out.println("Stalled: " + stalled));

        TopicDescription description = admin.describeTopics(java.util.List.of(topic))
                .allTopicNames()
                .get()
                .get(topic);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        description.partitions().forEach(p -> {
            latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
            earliest.put(new TopicPartition(topic, p.partition()), OffsetSpec.earliest());
        });
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                admin.listOffsets(latest).all().get();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts =
                admin.listOffsets(earliest).all().get();
        Optional<Watermark> watermark = table.watermark();
        Table partitions = new Table("PARTITION", "MATERIALIZED-UP-TO", "END-OFFSET", "LAG", "REMOVED-UNREAD");
        long totalLag = 0;
        long totalRemoved = 0;
        Map<TopicPartition, Long> behind = new HashMap<>();
        for (int p = 0; p < description.partitions().size(); p++) {
            long end = ends.get(new TopicPartition(topic, p)).offset();
            long start = starts.get(new TopicPartition(topic, p)).offset();
            long next = watermark.isPresent() ? watermark.get().next(p) : -1;
            long lag = next < 0 ? end : Math.max(0, end - next);
            // Records retention removed before the table read them (a stalled table holds nothing back).
            long removed = next < 0 ? 0 : Math.max(0, start - next);
            totalLag += lag;
            totalRemoved += removed;
            partitions.add(p, next < 0 ? "-" : next, end, lag, removed);
            if (lag > 0) {
                behind.put(new TopicPartition(topic, p), Math.max(next, 0));
            }
        }
        partitions.print(out);
        out.println("Lag: " + totalLag + " records"
                + oldestMissing(behind)
                        .map(at -> ", the oldest not in the table is "
                                + Duration.between(
                                                at,
                                                Concurrency.threads().clock().instant())
                                        .toSeconds() + " s old")
                        .orElse(""));
        if (totalRemoved > 0) {
            out.println("Removed before the table read them: " + totalRemoved + " records (the table skips them)");
        }
        out.println("Dead letters: "
                + table.deadLetterRows()
                        .map(rows -> rows + " (table " + namespace + "_dead_letters." + topic + ")")
                        .orElse("0"));
    }

    /** The timestamp of the oldest record not in the table: the first record at each partition's watermark. */
    private Optional<Instant> oldestMissing(Map<TopicPartition, Long> behind) {
        if (behind.isEmpty()) {
            return Optional.empty();
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        options.connection.bootstrap(),
                        ConsumerConfig.CLIENT_ID_CONFIG,
                        "floe-cli",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        500),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(behind.keySet());
            behind.forEach(consumer::seek);
            Map<TopicPartition, Long> first = new HashMap<>();
            Instant deadline =
                    Concurrency.threads().clock().instant().plusMillis(Math.min(options.connection.timeoutMs(), 5_000));
            while (first.size() < behind.size()
                    && Concurrency.threads().clock().instant().isBefore(deadline)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                    first.putIfAbsent(partition, record.timestamp());
                    consumer.pause(java.util.List.of(partition));
                }
            }
            return first.values().stream().min(Long::compare).map(Instant::ofEpochMilli);
        }
    }
}
