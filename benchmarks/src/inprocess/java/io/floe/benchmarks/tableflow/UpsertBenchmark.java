package io.floe.benchmarks.tableflow;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
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
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The cost of an upsert table's key lookups, with Floe in this JVM on embedded stores: a table of
 * {@code --keys} distinct keys (small JSON values) is loaded, then gets {@code --rounds} rounds of
 * {@code --round-keys} updates of random existing keys, then as many rounds of new keys, then the
 * agent's Tableflow restarts and one more round of updates follows. Each round is timed from the first
 * record produced to the table's watermark covering the last, and by the CPU time of the
 * {@code floe-tableflow} thread; the live heap (after a full GC) is read before the table exists, after
 * the load and after the update rounds. The table's row count is checked against the keys at the end.
 *
 * <p>Usage: {@code benchmarks/run-upsert.sh [--keys N] [--round-keys N] [--rounds N] [--partitions P]
 * [--value-bytes B] [--key-order hashed|sequential] [--topic-config NAME=VALUE ...] [--bloom false]};
 * topic configs (such as the key index bound) are passed through, so the driver runs against builds that
 * lack them. Keys are hashed by default (spread over the key space: only Bloom filters can rule out a
 * new key); sequential keys make each file's key bounds a narrow range.
 */
public final class UpsertBenchmark {

    private static final int BATCH_RECORDS = 100;
    /** The load's batches are bigger: it is not what is measured, and small appends would make it slow. */
    private static final int LOAD_BATCH_RECORDS = 6000;
    private static final String TOPIC = "upserts";
    private static final String SCHEMA = """
            {"type": "object", "properties": {
              "id": {"type": "integer"}, "balance": {"type": "integer"}, "note": {"type": "string"}},
             "required": ["id", "balance"]}""";

    private final Agent agent;
    private final TableCatalog tables;
    private final Topic topic;
    private final int valueBytes;
    private final boolean hashedKeys;
    private final Random random = new Random(19);
    private long produced;
    private long liveKeys;

    private UpsertBenchmark(Agent agent, TableCatalog tables, Topic topic, int valueBytes, boolean hashedKeys) {
        this.agent = agent;
        this.tables = tables;
        this.topic = topic;
        this.valueBytes = valueBytes;
        this.hashedKeys = hashedKeys;
    }

    public static void main(String[] args) throws Exception {
        Map<String, List<String>> options = options(args);
        long keys = Long.parseLong(single(options, "keys", "1000000"));
        int roundKeys = Integer.parseInt(single(options, "round-keys", "10000"));
        int rounds = Integer.parseInt(single(options, "rounds", "10"));
        int partitions = Integer.parseInt(single(options, "partitions", "6"));
        int valueBytes = Integer.parseInt(single(options, "value-bytes", "100"));
        boolean bloom = Boolean.parseBoolean(single(options, "bloom", "true"));
        boolean hashedKeys = switch (single(options, "key-order", "hashed")) {
            case "hashed" -> true;
            case "sequential" -> false;
            default -> throw new IllegalArgumentException("--key-order is hashed or sequential");
        };
        Map<String, String> configs = new HashMap<>(Map.of(
                "floe.tableflow.enabled", "true",
                "floe.tableflow.mode", "upsert",
                "floe.tableflow.format", "json",
                "floe.tableflow.schema", SCHEMA,
                "floe.tableflow.commit.interval.ms", "100"));
        for (String pair : options.getOrDefault("topic-config", List.of())) {
            configs.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
        System.out.printf(Locale.ROOT, "keys=%d roundKeys=%d rounds=%d partitions=%d valueBytes=%d bloom=%s"
                + " keyOrder=%s configs=%s maxHeap=%d MB%n", keys, roundKeys, rounds, partitions, valueBytes, bloom,
                hashedKeys ? "hashed" : "sequential",
                configs.entrySet().stream().filter(e -> !e.getKey().endsWith("schema")).toList(),
                Runtime.getRuntime().maxMemory() >> 20);

        Path dir = Files.createTempDirectory("floe-upsert-bench");
        try (MetadataStore metadata = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
                ObjectStore objects = new LocalObjectStore(dir.resolve("objects"))) {
            // No object cache: the live heap read here is the table job's, not produced segments'.
            Agent agent = Agent.start(AgentConfig.defaults().withFlush(Duration.ofMillis(20), 8 << 20)
                            .withCacheBytesMax(0),
                    AgentMetadata.of(metadata), objects, new SimpleMeterRegistry(), Clock.systemUTC());
            ObjectLocations locations = new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
            TableCatalog tables = new TableCatalog(IcebergCatalogs.jdbc(
                    "jdbc:sqlite:" + dir.resolve("metadata.db").toAbsolutePath(), null, null,
                    locations.root() + "/tables", new ObjectStoreFileIO(objects, locations, dir.resolve("spool"))),
                    "floe");
            TableflowConfig config = TableflowConfig.defaults(dir.resolve("spool")).withPollInterval(Duration.ofMillis(10));
            Tableflow tableflow = start(config, metadata, objects, tables);
            try {
                long baseline = liveHeapMb();
                Topic topic = agent.topics().create(new NewTopic(TOPIC, partitions, configs), false);
                UpsertBenchmark bench = new UpsertBenchmark(agent, tables, topic, valueBytes, hashedKeys);
                bench.awaitTable(bloom);
                bench.load(keys);
                bench.awaitQuiet();
                long afterLoad = liveHeapMb();
                List<Round> updates = new ArrayList<>();
                for (int i = 0; i < rounds; i++) {
                    updates.add(bench.round("update " + (i + 1), roundKeys, keys, false));
                }
                bench.awaitQuiet();
                long afterUpdates = liveHeapMb();
                List<Round> inserts = new ArrayList<>();
                for (int i = 0; i < rounds; i++) {
                    inserts.add(bench.round("insert " + (i + 1), roundKeys, keys, true));
                }
                bench.awaitQuiet();
                long beforeStop = liveHeapMb();
                tableflow.close();
                tableflow = null; // the stopped jobs, and what they held, become garbage
                long stopped = liveHeapMb();
                tableflow = start(config, metadata, objects, tables);
                Round restart = bench.round("update after restart", roundKeys, keys, false);
                System.out.printf(Locale.ROOT, "%nlive heap MB: before the table %d, after the load %d (+%d),"
                        + " after the update rounds %d (+%d)%n", baseline, afterLoad, afterLoad - baseline,
                        afterUpdates, afterUpdates - baseline);
                System.out.printf(Locale.ROOT, "held by Tableflow after the insert rounds (live heap before less after"
                        + " stopping it): %d MB%n", beforeStop - stopped);
                summary("update rounds", updates);
                summary("insert rounds", inserts);
                summary("first round after a restart", List.of(restart));
                bench.check();
            } finally {
                if (tableflow != null) {
                    tableflow.close();
                }
                tables.close();
                agent.close();
            }
        } finally {
            deleteRecursively(dir);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static Tableflow start(TableflowConfig config, MetadataStore metadata, ObjectStore objects,
            TableCatalog tables) {
        return Tableflow.start(config, "bench", TableflowMetadata.of(metadata), objects, tables, Clock.systemUTC(),
                new SimpleMeterRegistry());
    }

    /** Waits for the job to create the (empty) table; without Bloom filters, turns them off before any row. */
    private void awaitTable(boolean bloom) throws InterruptedException {
        while (tables.load(TOPIC).isEmpty()) {
            Thread.sleep(10);
        }
        if (!bloom) {
            Table table = tables.load(TOPIC).orElseThrow();
            table.updateProperties().set("write.parquet.bloom-filter-enabled.column.kafka_key", "false").commit();
        }
    }

    private void load(long keys) throws Exception {
        long start = System.nanoTime();
        long cpu = tableflowCpuNanos();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (long first = 0; first < keys; first += LOAD_BATCH_RECORDS) {
            int count = (int) Math.min(LOAD_BATCH_RECORDS, keys - first);
            long[] ids = new long[count];
            for (int i = 0; i < count; i++) {
                ids[i] = first + i;
            }
            pending.addAll(send(ids));
            if (pending.size() >= 60) {
                CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
                pending.clear();
            }
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        liveKeys = keys;
        awaitMaterialized();
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (tableflowCpuNanos() - cpu) / 1e9;
        System.out.printf(Locale.ROOT, "load: keys=%d seconds=%.1f keys/s=%.0f cpuSeconds=%.1f keys per"
                + " CPU-second=%.0f%n", keys, seconds, keys / seconds, cpuSeconds, keys / cpuSeconds);
    }

    private record Round(String name, int keys, double seconds, double cpuSeconds) {}

    /** One round of {@code count} keys: random existing ones, or new ones after {@code liveKeys}. */
    private Round round(String name, int count, long keys, boolean insert) throws Exception {
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = insert ? liveKeys + i : (long) (random.nextDouble() * keys);
        }
        long start = System.nanoTime();
        long cpu = tableflowCpuNanos();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (int first = 0; first < count; first += BATCH_RECORDS) {
            long[] batch = Arrays.copyOfRange(ids, first, Math.min(count, first + BATCH_RECORDS));
            pending.addAll(send(batch));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
        if (insert) {
            liveKeys += count;
        }
        awaitMaterialized();
        Round round = new Round(name, count, (System.nanoTime() - start) / 1e9,
                (tableflowCpuNanos() - cpu) / 1e9);
        Snapshot snapshot = tables.load(TOPIC).orElseThrow().currentSnapshot();
        System.out.printf(Locale.ROOT, "%s: seconds=%.2f cpuSeconds=%.2f keys/s=%.0f keys per CPU-second=%.0f"
                + " dataFiles=%s deleteFiles=%s fileMB=%.1f%n", name, round.seconds(), round.cpuSeconds(),
                count / round.seconds(), count / round.cpuSeconds(), snapshot.summary().get("total-data-files"),
                snapshot.summary().get("total-delete-files"),
                Long.parseLong(snapshot.summary().get("total-files-size")) / 1e6);
        return round;
    }

    /** Appends one batch per partition for {@code ids} (a key always goes to the same partition). */
    private List<CompletableFuture<?>> send(long[] ids) {
        Map<Integer, List<SimpleRecord>> byPartition = new HashMap<>();
        long now = System.currentTimeMillis();
        for (long id : ids) {
            byte[] key = key(id);
            byPartition.computeIfAbsent((int) (id % topic.partitionCount()), p -> new ArrayList<>())
                    .add(new SimpleRecord(now, key, value(id)));
        }
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (Map.Entry<Integer, List<SimpleRecord>> partition : byPartition.entrySet()) {
            ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE,
                    partition.getValue().toArray(SimpleRecord[]::new)).buffer();
            sent.add(agent.produce().append(topic, partition.getKey(), batch));
            produced += partition.getValue().size();
        }
        return sent;
    }

    /**
     * The key of id {@code id}: {@code key-000000042} in id order, or (hashed) 16 hex digits of a bijective
     * mix of the id, so keys of any id range spread over the whole key space, as UUIDs or hashed ids do,
     * and every data file's key bounds span nearly all keys.
     */
    private byte[] key(long id) {
        String key = hashedKeys
                ? String.format(Locale.ROOT, "%016x", mix(id))
                : String.format(Locale.ROOT, "key-%09d", id);
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** MurmurHash3's 64-bit finalizer: a bijection, so distinct ids keep distinct keys. */
    private static long mix(long id) {
        long h = id;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    private byte[] value(long id) {
        StringBuilder json = new StringBuilder(valueBytes).append("{\"id\": ").append(id)
                .append(", \"balance\": ").append(random.nextInt(1_000_000)).append(", \"note\": \"");
        while (json.length() < valueBytes - 2) {
            json.append((char) ('a' + random.nextInt(26)));
        }
        return json.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private void awaitMaterialized() throws InterruptedException {
        while (true) {
            long done = tables.load(TOPIC).flatMap(Watermark::of)
                    .map(mark -> mark.nextOffsets().values().stream().mapToLong(Long::longValue).sum()).orElse(0L);
            if (done >= produced) {
                return;
            }
            Thread.sleep(5);
        }
    }

    /**
     * Waits until the table has had the same snapshot for two seconds: a compaction that followed the
     * last round is done, and the heap read next holds no rewrite in flight.
     */
    private void awaitQuiet() throws InterruptedException {
        long snapshot = tables.load(TOPIC).orElseThrow().currentSnapshot().snapshotId();
        long since = System.nanoTime();
        while (System.nanoTime() - since < 2_000_000_000L) {
            Thread.sleep(100);
            long now = tables.load(TOPIC).orElseThrow().currentSnapshot().snapshotId();
            if (now != snapshot) {
                snapshot = now;
                since = System.nanoTime();
            }
        }
    }

    /** The table's live rows (records less deleted positions) must be the live keys: one row per key. */
    private void check() {
        Map<String, String> summary = tables.load(TOPIC).orElseThrow().currentSnapshot().summary();
        long rows = Long.parseLong(summary.get("total-records"))
                - Long.parseLong(summary.getOrDefault("total-position-deletes", "0"));
        System.out.printf(Locale.ROOT, "check: table rows=%d live keys=%d %s%n", rows, liveKeys,
                rows == liveKeys ? "OK" : "MISMATCH");
        if (rows != liveKeys) {
            throw new IllegalStateException("the table has " + rows + " rows for " + liveKeys + " keys");
        }
    }

    private static void summary(String what, List<Round> rounds) {
        double[] seconds = rounds.stream().mapToDouble(Round::seconds).sorted().toArray();
        double[] cpu = rounds.stream().mapToDouble(Round::cpuSeconds).sorted().toArray();
        long keys = rounds.stream().mapToLong(Round::keys).sum();
        double totalSeconds = rounds.stream().mapToDouble(Round::seconds).sum();
        double totalCpu = rounds.stream().mapToDouble(Round::cpuSeconds).sum();
        System.out.printf(Locale.ROOT, "%s: %d rounds, seconds median %.2f max %.2f; CPU-seconds median %.2f max"
                        + " %.2f; keys/s overall %.0f; keys per CPU-second overall %.0f%n", what, rounds.size(),
                seconds[seconds.length / 2], seconds[seconds.length - 1], cpu[cpu.length / 2], cpu[cpu.length - 1],
                keys / totalSeconds, keys / totalCpu);
    }

    private static long liveHeapMb() {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
    }

    /** The table job's thread only: a {@code floe-tableflow-changes-*} thread would also start with its name. */
    private static long tableflowCpuNanos() {
        return Cpu.threadNanos(Cpu.tableflowThread());
    }

    private static String single(Map<String, List<String>> options, String name, String defaultValue) {
        List<String> values = options.getOrDefault(name, List.of(defaultValue));
        return values.get(values.size() - 1);
    }

    private static Map<String, List<String>> options(String[] args) {
        Map<String, List<String>> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            options.computeIfAbsent(args[i].substring(2), name -> new ArrayList<>()).add(args[i + 1]);
        }
        return options;
    }
}
