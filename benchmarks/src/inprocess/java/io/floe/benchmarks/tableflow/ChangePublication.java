package io.floe.benchmarks.tableflow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.core.topic.Topic;
import io.floe.tableflow.table.Watermark;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One measured publication of a change topic ({@code floe.tableflow.changes.topic}): a fresh Floe with its Kafka
 * listener, {@code records} records produced, the table materialized ({@code variant}'s mode, no change topic) and
 * Tableflow quiet; then the change topic is named and the clock runs until the stream's progress (the committed
 * offsets of the group {@code floe-tableflow-changes-<topic>} on the source topic) reaches the table's watermark and
 * the Tableflow thread is quiet again. What the topic gets depends on the {@link ChangeVariant}: an append table's
 * rows as {@code c} events, an upsert table's replayed history, or its initial snapshot. Afterwards (not timed) the change topic is read {@code read_committed} and its events counted by operation:
 * that count is what the figures divide, and it must equal the table's rows.
 *
 * @param changes the change events the topic holds (tombstones not counted)
 * @param ops the events by Debezium operation ({@code c}, {@code u}, {@code d}, {@code r})
 * @param threadCpuSeconds CPU time of the one Tableflow thread, which plans, reads and encodes the changes and sends
 *     them
 * @param processCpuSeconds CPU time of the whole JVM less the driver's thread: the Tableflow thread, the change
 *     producer's network thread, the agent serving its produce, transaction and offset requests, GC and JIT
 */
record ChangePublication(
        ChangeVariant variant,
        long records,
        long keySpace,
        long tableRows,
        long changes,
        Map<String, Long> ops,
        double seconds,
        double threadCpuSeconds,
        double processCpuSeconds,
        double loadBefore) {

    private static final String TOPIC = "bench";
    private static final String CHANGES = "bench-changes";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofMinutes(30);

    static ChangePublication run(ChangeVariant variant, long records, int partitions, long keySpace,
            long commitIntervalMs) throws Exception {
        try (InProcessFloe floe = InProcessFloe.startWithChangeTopics()) {
            Topic topic = floe.createTopic(TOPIC, partitions, Map.of());
            floe.produce(topic, 0, records, id -> EventRecords.key(id, keySpace));
            Map<String, String> configs = variant.table().configs(commitIntervalMs);
            floe.agent().topics().setConfigs(TOPIC, configs);
            floe.awaitMaterialized(TOPIC, records);
            Thread tableflow = Cpu.tableflowThread();
            Cpu.awaitQuiet(tableflow);
            Map<Integer, Long> watermark = watermark(floe);
            long tableRows = rows(floe);
            try (Admin admin = admin(floe.listen())) {
                if (variant.historyDeleted()) {
                    Map<TopicPartition, RecordsToDelete> before = new HashMap<>();
                    watermark.forEach((partition, next) ->
                            before.put(new TopicPartition(TOPIC, partition), RecordsToDelete.beforeOffset(next)));
                    admin.deleteRecords(before).all().get();
                }
                double loadBefore = Cpu.loadValue();
                long thread0 = Cpu.threadNanos(tableflow);
                long process0 = Cpu.processNanos();
                long driver0 = Cpu.currentThreadNanos();
                long start = System.nanoTime();
                Map<String, String> withChanges = new HashMap<>(configs);
                withChanges.put("floe.tableflow.changes.topic", CHANGES);
                floe.agent().topics().setConfigs(TOPIC, withChanges);
                awaitPublished(admin, watermark, start);
                long[] end = Cpu.awaitQuiet(tableflow);
                long process1 = Cpu.processNanos();
                long driver1 = Cpu.currentThreadNanos();
                Map<String, Long> ops = readChanges(floe.listen(), partitions);
                long changes = ops.values().stream().mapToLong(Long::longValue).sum();
                return new ChangePublication(variant, records, keySpace, tableRows, changes, ops, (end[0] - start) / 1e9,
                        (end[1] - thread0) / 1e9, ((process1 - process0) - (driver1 - driver0)) / 1e9, loadBefore);
            }
        }
    }

    /** The table's next offset per source partition: where the stream's progress ends. */
    private static Map<Integer, Long> watermark(InProcessFloe floe) {
        return floe.tables().load(TOPIC).flatMap(Watermark::of).map(Watermark::nextOffsets)
                .map(TreeMap::new).orElseThrow(() -> new IllegalStateException("table " + TOPIC + " has no watermark"));
    }

    private static long rows(InProcessFloe floe) {
        Map<String, String> summary = floe.tables().load(TOPIC).orElseThrow().currentSnapshot().summary();
        return Long.parseLong(summary.get("total-records"))
                - Long.parseLong(summary.getOrDefault("total-position-deletes", "0"));
    }

    /** Polls the stream's committed progress every 100 ms until it reaches {@code watermark}. */
    private static void awaitPublished(Admin admin, Map<Integer, Long> watermark, long start) throws Exception {
        String group = "floe-tableflow-changes-" + TOPIC;
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> progress =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            boolean done = watermark.entrySet().stream().allMatch(mark -> {
                OffsetAndMetadata offset = progress.get(new TopicPartition(TOPIC, mark.getKey()));
                return mark.getValue() == 0 || offset != null && offset.offset() >= mark.getValue();
            });
            if (done) {
                return;
            }
            if (System.nanoTime() - start > TIMEOUT.toNanos()) {
                throw new IllegalStateException("the change topic of " + TOPIC + " did not reach " + watermark + " in "
                        + TIMEOUT + "; progress " + progress);
            }
            Thread.sleep(100);
        }
    }

    /** Every event of the change topic, read committed, counted by Debezium operation (tombstones left out). */
    private static Map<String, Long> readChanges(String bootstrap, int partitions) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        Map<String, Long> ops = new TreeMap<>();
        List<TopicPartition> assigned = IntStream.range(0, partitions)
                .mapToObj(p -> new TopicPartition(CHANGES, p)).toList();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> ends = consumer.endOffsets(assigned);
            while (ends.entrySet().stream().anyMatch(end -> consumer.position(end.getKey()) < end.getValue())) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.value() != null) {
                        ops.merge(op(record.value()), 1L, Long::sum);
                    }
                }
            }
        }
        return ops;
    }

    private static String op(byte[] value) {
        try {
            JsonNode event = JSON.readTree(value);
            JsonNode op = event.has("payload") ? event.get("payload").get("op") : event.get("op");
            return op == null ? "?" : op.asText();
        } catch (java.io.IOException e) {
            return "unreadable";
        }
    }

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    /**
     * Whether the events are what the table implies: an append table's rows as {@code c} events; an upsert table's
     * live rows as {@code r} events (an initial snapshot) or, when its history was replayed, every record as a
     * {@code c} (a key's first) or {@code u} event.
     */
    boolean consistent() {
        long c = ops.getOrDefault("c", 0L);
        long u = ops.getOrDefault("u", 0L);
        long r = ops.getOrDefault("r", 0L);
        if (variant.table().mode().equals("append")) {
            return c == tableRows && changes == c;
        }
        return r == tableRows && changes == r || c == tableRows && c + u == records && changes == records;
    }

    double changesPerSecond() {
        return changes / seconds;
    }

    double changesPerThreadCpuSecond() {
        return changes / threadCpuSeconds;
    }

    double changesPerProcessCpuSecond() {
        return changes / processCpuSeconds;
    }

    String line() {
        return String.format(Locale.ROOT, "changes variant=%s records=%d keySpace=%d tableRows=%d changes=%d ops=%s"
                        + " seconds=%.2f changes/s=%.0f threadCpuSeconds=%.2f changes per thread CPU-second=%.0f"
                        + " processCpuSeconds=%.2f changes per agent CPU-second=%.0f load=%.2f",
                variant, records, keySpace, tableRows, changes, ops, seconds, changesPerSecond(), threadCpuSeconds,
                changesPerThreadCpuSecond(), processCpuSeconds, changesPerProcessCpuSecond(), loadBefore);
    }
}
