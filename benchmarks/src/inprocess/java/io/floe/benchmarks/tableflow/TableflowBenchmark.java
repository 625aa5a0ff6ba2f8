package io.floe.benchmarks.tableflow;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.tableflow.Tableflow;
import io.floe.tableflow.TableflowConfig;
import io.floe.tableflow.TableflowMetadata;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.Watermark;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Tableflow's cost and lag, with Floe in this JVM on embedded stores:
 * <ol>
 *   <li>throughput: {@code --records} 1 KiB JSON records are produced first, then Tableflow is turned on
 *       and materializes them; reported per second of wall time and per CPU-second of the one
 *       {@code floe-tableflow} thread (what "per core" means here);</li>
 *   <li>lag: records are produced at {@code --rate-fraction} of the measured throughput for
 *       {@code --lag-seconds} into a one-partition topic with a {@code --commit-interval-ms} commit
 *       interval; every 50 ms the table's watermark is read and the age of the oldest record not yet in
 *       the table is sampled.</li>
 * </ol>
 * Usage: {@code benchmarks/run-tableflow.sh [--records N] [--partitions P] [--commit-interval-ms N]
 * [--lag-seconds N] [--rate-fraction F]}.
 */
public final class TableflowBenchmark {

    private static final int VALUE_BYTES = 1024;
    private static final int BATCH_RECORDS = 100;
    private static final String SCHEMA = """
            {"type": "object", "properties": {
              "id": {"type": "integer"}, "user": {"type": "string"}, "event": {"type": "string"},
              "amount": {"type": "number"}, "at": {"type": "string", "format": "date-time"},
              "tags": {"type": "array", "items": {"type": "string"}}, "payload": {"type": "string"}},
             "required": ["id", "user"]}""";

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        long records = Long.parseLong(options.getOrDefault("records", "300000"));
        int partitions = Integer.parseInt(options.getOrDefault("partitions", "6"));
        long commitIntervalMs = Long.parseLong(options.getOrDefault("commit-interval-ms", "2000"));
        int lagSeconds = Integer.parseInt(options.getOrDefault("lag-seconds", "30"));
        double rateFraction = Double.parseDouble(options.getOrDefault("rate-fraction", "0.5"));

        Path dir = Files.createTempDirectory("floe-tableflow-bench");
        try (MetadataStore metadata = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
                ObjectStore objects = new LocalObjectStore(dir.resolve("objects"))) {
            Agent agent = Agent.start(AgentConfig.defaults().withFlush(Duration.ofMillis(20), 8 << 20), AgentMetadata.of(metadata),
                    objects, new SimpleMeterRegistry(), Clock.systemUTC());
            ObjectLocations locations = new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
            TableCatalog tables = new TableCatalog(IcebergCatalogs.jdbc(
                    "jdbc:sqlite:" + dir.resolve("metadata.db").toAbsolutePath(), null, null,
                    locations.root() + "/tables", new ObjectStoreFileIO(objects, locations, dir.resolve("spool"))),
                    "floe");
            try (Tableflow tableflow = Tableflow.start(TableflowConfig.defaults(dir.resolve("spool"))
                            .withPollInterval(Duration.ofMillis(10)), "bench", TableflowMetadata.of(metadata), objects, tables,
                    Clock.systemUTC(), new SimpleMeterRegistry())) {
                double mbPerSecond = throughput(agent, metadata, tables, records, partitions);
                lag(agent, metadata, tables, commitIntervalMs, lagSeconds, mbPerSecond * rateFraction);
            } finally {
                tables.close();
                agent.close();
            }
        }
    }

    private static double throughput(Agent agent, MetadataStore metadata, TableCatalog tables, long records,
            int partitions) throws Exception {
        Topic topic = agent.topics().create(new NewTopic("bench", partitions, Map.of()), false);
        long bytes = 0;
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (long i = 0; i < records; i += BATCH_RECORDS) {
            ByteBuffer batch = batch(i, (int) Math.min(BATCH_RECORDS, records - i), System.currentTimeMillis());
            bytes += batch.remaining();
            pending.add(agent.produce().append(topic, (int) ((i / BATCH_RECORDS) % partitions), batch));
            if (pending.size() >= 200) {
                CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
                pending.clear();
            }
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        System.out.printf(Locale.ROOT, "produced records=%d batchBytes=%d (%.1f MB)%n", records, bytes, bytes / 1e6);

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long thread = tableflowThread();
        long cpuBefore = threads.getThreadCpuTime(thread);
        long start = System.nanoTime();
        agent.topics().setConfigs("bench", Map.of("floe.tableflow.enabled", "true", "floe.tableflow.format", "json",
                "floe.tableflow.schema", SCHEMA, "floe.tableflow.commit.interval.ms", "1000"));
        awaitMaterialized(metadata, tables, topic, records);
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (threads.getThreadCpuTime(thread) - cpuBefore) / 1e9;
        double mbPerSecond = bytes / 1e6 / seconds;
        System.out.printf(Locale.ROOT, "materialized records=%d seconds=%.1f records/s=%.0f MB/s=%.1f"
                        + " cpuSeconds=%.1f MB/s per CPU-second=%.1f load=%s%n",
                records, seconds, records / seconds, mbPerSecond, cpuSeconds, bytes / 1e6 / cpuSeconds, load());
        return mbPerSecond;
    }

    private static void lag(Agent agent, MetadataStore metadata, TableCatalog tables, long commitIntervalMs,
            int lagSeconds, double mbPerSecond) throws Exception {
        Topic topic = agent.topics().create(new NewTopic("steady", 1, Map.of("floe.tableflow.enabled", "true",
                "floe.tableflow.format", "json", "floe.tableflow.schema", SCHEMA,
                "floe.tableflow.commit.interval.ms", Long.toString(commitIntervalMs))), false);
        double recordsPerSecond = mbPerSecond * 1e6 / (VALUE_BYTES + 60);
        System.out.printf(Locale.ROOT, "steady phase: rate=%.0f records/s (%.1f MB/s) commitIntervalMs=%d seconds=%d%n",
                recordsPerSecond, mbPerSecond, commitIntervalMs, lagSeconds);
        long t0 = System.nanoTime();
        long produced = 0;
        List<Double> lags = new ArrayList<>();
        long nextSample = t0;
        long end = t0 + lagSeconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            long due = (long) ((System.nanoTime() - t0) / 1e9 * recordsPerSecond);
            while (produced < due) {
                int count = (int) Math.min(BATCH_RECORDS, due - produced);
                agent.produce().append(topic, 0, batch(produced, count, System.currentTimeMillis()));
                produced += count;
            }
            if (System.nanoTime() >= nextSample) {
                long materialized = tables.load("steady").flatMap(Watermark::of).map(mark -> mark.next(0)).orElse(0L);
                // Record n was produced at t0 + n / rate: the oldest record missing from the table is that old.
                double oldestMissing = materialized / recordsPerSecond;
                double now = (System.nanoTime() - t0) / 1e9;
                lags.add(materialized >= produced ? 0.0 : Math.max(0, now - oldestMissing));
                nextSample += 50_000_000L;
            }
            Thread.sleep(2);
        }
        Collections.sort(lags);
        List<Double> steady = lags.subList(lags.size() / 5, lags.size()); // the first fifth is warm-up
        System.out.printf(Locale.ROOT, "lag seconds: p50=%.2f p99=%.2f max=%.2f (target < %.1f = 2 commit intervals)"
                        + " samples=%d load=%s%n",
                percentile(steady, 0.5), percentile(steady, 0.99), steady.get(steady.size() - 1),
                2 * commitIntervalMs / 1000.0, steady.size(), load());
        metadata.offsets(new TopicPartition("steady", 0));
    }

    private static void awaitMaterialized(MetadataStore metadata, TableCatalog tables, Topic topic, long records)
            throws InterruptedException {
        while (true) {
            long done = tables.load(topic.name()).flatMap(Watermark::of)
                    .map(mark -> mark.nextOffsets().values().stream().mapToLong(Long::longValue).sum()).orElse(0L);
            if (done >= records) {
                return;
            }
            Thread.sleep(20);
        }
    }

    private static ByteBuffer batch(long first, int count, long timestamp) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            long id = first + i;
            records[i] = new SimpleRecord(timestamp, ("user-" + (id % 1000)).getBytes(StandardCharsets.UTF_8),
                    json(id).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records).buffer();
    }

    /** A JSON value of about {@link #VALUE_BYTES} bytes. */
    private static String json(long id) {
        String head = "{\"id\": " + id + ", \"user\": \"user-" + (id % 1000) + "\", \"event\": \"click\", \"amount\": "
                + (id % 10_000) / 100.0 + ", \"at\": \"2026-11-30T12:00:00Z\", \"tags\": [\"a\", \"b\"], \"payload\": \"";
        StringBuilder value = new StringBuilder(VALUE_BYTES).append(head);
        while (value.length() < VALUE_BYTES - 2) {
            value.append((char) ('a' + (value.length() + id) % 26));
        }
        return value.append("\"}").toString();
    }

    private static long tableflowThread() {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals("floe-tableflow")) {
                return thread.getId();
            }
        }
        throw new IllegalStateException("no floe-tableflow thread");
    }

    private static double percentile(List<Double> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) (q * sorted.size())));
    }

    private static String load() {
        return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }
}
