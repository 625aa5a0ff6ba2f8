package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.delta.DeltaMetrics;
import io.floe.tableflow.delta.DeltaMirror;
import io.floe.tableflow.delta.DeltaReads;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic published as Iceberg and Delta, its job driven one poll at a time on a stepped clock. After
 * every step, Delta Kernel's reader (column mapping by field id) and Iceberg's generic reader return
 * the same rows by value, the latest Delta version references exactly the files of Iceberg's current
 * snapshot, and no Delta log file ever changes once written.
 */
@Timeout(120)
class DeltaMirrorIT {

    private static final String TOPIC = "payments";
    private static final int PARTITIONS = 2;
    private static final String SCHEMA = """
            {"type": "object", "required": ["id"], "properties": {
              "id": {"type": "integer"},
              "name": {"type": ["string", "null"]},
              "price": {"type": ["number", "null"]},
              "active": {"type": "boolean"},
              "day": {"type": "string", "format": "date"},
              "at": {"type": "string", "format": "date-time"},
              "tags": {"type": "array", "items": {"type": "string"}},
              "address": {"type": "object", "properties": {
                "city": {"type": "string"}, "zip": {"type": "integer"}}}}}""";
    private static final String GROWN_SCHEMA = SCHEMA.replace(
            "\"name\": {\"type\": [\"string\", \"null\"]},",
            "\"name\": {\"type\": [\"string\", \"null\"]}, \"note\": {\"type\": \"string\"},");
    private static final int MAX_POLLS = 50;

    @TempDir
    Path dataDir;

    private final ManualClock clock = new ManualClock();
    private final Map<String, ByteBuffer> logSeen = new TreeMap<>();

    @Test
    void deltaReadersSeeTheIcebergRowsAfterRoundsCompactionsAndASkippedCommit() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir)) {
            TableJobs jobs = jobs(floe);
            Map<String, String> configs = topicConfigs(Map.of(TableflowConfigs.COMPACTION_TRIGGER_FILES, "3"));
            Topic topic = floe.agent.topics().create(new NewTopic(TOPIC, PARTITIONS, configs), false);

            for (int round = 1; round <= 4; round++) {
                produce(floe, topic, round, false);
                pollUntilCaughtUp(floe, jobs);
                assertMirrored(floe);
            }
            assertThat(counter(floe, "floe.tableflow.maintenance.files.rewritten"))
                    .as("a compaction ran")
                    .isPositive();
            assertThat(DeltaLogs.commitText(floe, TOPIC)).contains("\"remove\"").contains("\"dataChange\":false");
            assertThat(DeltaLogs.commitText(floe, TOPIC))
                    .as("removed files stay for Delta readers as long as old snapshots stay for Iceberg's")
                    .contains("\"delta.deletedFileRetentionDuration\":\"interval 1 days\"");
            assertThat(DeltaLogs.commitText(floe, TOPIC))
                    .as("add actions carry the Iceberg bounds as Delta stats")
                    .contains("\\\"minValues\\\":{\\\"kafka_partition\\\":0,\\\"kafka_offset\\\":0,");

            // A Delta commit skipped after its Iceberg commit (as by a crash between the two): the table
            // advances while the mirror is off, and the next round completes the Delta log.
            configs.put(TableflowConfigs.DELTA_ENABLED, "false");
            floe.agent.topics().setConfigs(TOPIC, configs);
            produce(floe, topic, 5, false);
            pollUntilCaughtUp(floe, jobs);
            Table table = floe.tables.load(TOPIC).orElseThrow();
            assertThat(DeltaLogs.mirroredSequence(floe, TOPIC))
                    .isLessThan(table.currentSnapshot().sequenceNumber());
            configs.put(TableflowConfigs.DELTA_ENABLED, "true");
            floe.agent.topics().setConfigs(TOPIC, configs);
            poll(jobs);
            assertMirrored(floe);

            // The schema grows a column: the Delta schema follows with the column's Iceberg id. The snapshot
            // retention is lowered: the Delta log's file retention follows.
            configs.put(TableflowConfigs.SCHEMA, GROWN_SCHEMA);
            configs.put(
                    TableflowConfigs.SNAPSHOT_RETENTION_MS,
                    Long.toString(Duration.ofHours(1).toMillis()));
            floe.agent.topics().setConfigs(TOPIC, configs);
            snapshotRetention = Duration.ofHours(1);
            for (int round = 6; round <= 9; round++) {
                produce(floe, topic, round, true);
                pollUntilCaughtUp(floe, jobs);
                assertMirrored(floe);
            }
            assertThat(DeltaLogs.commitText(floe, TOPIC))
                    .contains("\"delta.deletedFileRetentionDuration\":\"interval 1 hours\"");
            assertThat(DeltaReads.deltaRows(floe.objects, floe.io.locations(), DeltaLogs.location(floe, TOPIC)))
                    .anySatisfy(row -> assertThat(row.get("note")).isNotNull())
                    .anySatisfy(row -> assertThat(row.get("kafka_headers"))
                            .isEqualTo(List.of(Map.of("key", "source", "value", "7330")))
                            .isNotNull());

            // Delta readers prune by the statistics: a filter on the last round's ids skips files, and
            // the files it keeps hold every matching row.
            List<String> kept = new ArrayList<>();
            List<Map<String, Object>> pruned = DeltaReads.deltaRows(
                    floe.objects,
                    floe.io.locations(),
                    DeltaLogs.location(floe, TOPIC),
                    Optional.of(new Predicate(">=", new Column("id"), Literal.ofLong(9000L))),
                    kept);
            Table last = floe.tables.load(TOPIC).orElseThrow();
            assertThat(kept).hasSizeLessThan(icebergFiles(floe, last).size());
            assertThat(pruned.stream().filter(row -> (Long) row.get("id") >= 9000L))
                    .containsExactlyInAnyOrderElementsOf(
                            DeltaReads.icebergRows(last, TableflowHarness.rows(last)).stream()
                                    .filter(row -> (Long) row.get("id") >= 9000L)
                                    .toList())
                    .hasSize(2 * 10);

            Set<String> log = logKeys(floe);
            assertThat(log)
                    .as("a checkpoint after the interval")
                    .contains(logKey(floe, "00000000000000000010.checkpoint.parquet"))
                    .contains(logKey(floe, "_last_checkpoint"));
            assertThat(counter(floe, "floe.tableflow.delta.failures")).isZero();
            assertThat(counter(floe, "floe.tableflow.delta.commits")).isGreaterThanOrEqualTo(10);
        }
    }

    @Test
    void aFailedDeltaUpdateLeavesTheRoundCommittedAndIsRetriedNextRound() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir)) {
            TableJobs jobs = jobs(floe);
            Topic topic = floe.agent.topics().create(new NewTopic(TOPIC, PARTITIONS, topicConfigs(Map.of())), false);
            produce(floe, topic, 1, false);
            pollUntilCaughtUp(floe, jobs);
            // Something else's file where the next Delta commit goes: the log cannot be read.
            ObjectKey blocker = new ObjectKey(logKey(floe, "00000000000000000002.json"));
            floe.objects.put(blocker, ByteBuffer.wrap("not a delta commit".getBytes(StandardCharsets.UTF_8)));

            produce(floe, topic, 2, false);
            pollUntilCaughtUp(floe, jobs);
            Table table = floe.tables.load(TOPIC).orElseThrow();
            assertThat(TableflowHarness.rows(table)).hasSize(2 * 2 * 10);
            assertThat(counter(floe, "floe.tableflow.delta.failures")).isPositive();

            floe.objects.delete(blocker);
            poll(jobs);
            assertMirrored(floe);
        }
    }

    /** The JSON topic's configs: Tableflow and Delta publishing on, a snapshot every poll, and {@code more}. */
    private static Map<String, String> topicConfigs(Map<String, String> more) {
        Map<String, String> configs = new HashMap<>(Map.of(
                TableflowConfigs.ENABLED, "true",
                TableflowConfigs.FORMAT, "json",
                TableflowConfigs.SCHEMA, SCHEMA,
                TableflowConfigs.COMMIT_INTERVAL_MS, "1",
                TableflowConfigs.DELTA_ENABLED, "true"));
        configs.putAll(more);
        return configs;
    }

    private TableJobs jobs(TableflowHarness floe) {
        return new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool")),
                "agent-1",
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                floe.meters);
    }

    /** The topic's floe.tableflow.snapshot.retention.ms as the test last set it (the default at first). */
    private Duration snapshotRetention = Duration.ofDays(1);

    /** The Delta log at the Iceberg table's current snapshot, by rows, files and its transaction. */
    private void assertMirrored(TableflowHarness floe) {
        Table table = floe.tables.load(TOPIC).orElseThrow();
        List<Map<String, Object>> iceberg = DeltaReads.icebergRows(table, TableflowHarness.rows(table));
        List<Map<String, Object>> delta =
                DeltaReads.deltaRows(floe.objects, floe.io.locations(), DeltaLogs.location(floe, TOPIC));
        assertThat(iceberg).isNotEmpty();
        assertThat(delta).as("rows read through the Delta log").containsExactlyInAnyOrderElementsOf(iceberg);
        assertThat(DeltaReads.deltaFiles(floe.objects, floe.io.locations(), DeltaLogs.location(floe, TOPIC)))
                .as("files of the latest Delta version")
                .isEqualTo(icebergFiles(floe, table));
        assertThat(DeltaLogs.mirroredSequence(floe, TOPIC))
                .isEqualTo(table.currentSnapshot().sequenceNumber());
        assertThat(new DeltaMirror(new DeltaMetrics(new SimpleMeterRegistry(), TOPIC), clock)
                        .sync(table, snapshotRetention))
                .as("a fresh mirror of the table finds nothing to do")
                .isEqualTo(DeltaMirror.Outcome.UP_TO_DATE);
        assertLogOnlyGrew(floe);
    }

    /** Every Delta commit file seen before is still there, byte for byte. */
    private void assertLogOnlyGrew(TableflowHarness floe) {
        Map<String, ByteBuffer> now = new TreeMap<>();
        for (ObjectInfo info : floe.objects.list(DeltaLogs.prefix(floe, TOPIC))) {
            if (info.key().value().endsWith(".json")) {
                now.put(info.key().value(), floe.objects.get(info.key()));
            }
        }
        for (Map.Entry<String, ByteBuffer> seen : logSeen.entrySet()) {
            assertThat(now).as("delta commit %s", seen.getKey()).containsEntry(seen.getKey(), seen.getValue());
        }
        logSeen.putAll(now);
    }

    private static Set<String> icebergFiles(TableflowHarness floe, Table table) {
        Set<String> files = new TreeSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(floe.io
                    .locations()
                    .location(floe.io.locations().key(task.file().location()))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static String logKey(TableflowHarness floe, String name) {
        return DeltaLogs.prefix(floe, TOPIC) + name;
    }

    private static Set<String> logKeys(TableflowHarness floe) {
        Set<String> keys = new TreeSet<>();
        floe.objects
                .list(DeltaLogs.prefix(floe, TOPIC))
                .forEach(info -> keys.add(info.key().value()));
        return keys;
    }

    private static double counter(TableflowHarness floe, String name) {
        return floe.meters.find(name).counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count)
                .sum();
    }

    /**
     * Ten records per partition with every typed field set (some nulls), half with a key and a header,
     * plus {@code note} when grown.
     */
    private void produce(TableflowHarness floe, Topic topic, int round, boolean withNote) {
        for (int partition = 0; partition < PARTITIONS; partition++) {
            SimpleRecord[] records = new SimpleRecord[10];
            for (int i = 0; i < records.length; i++) {
                long id = round * 1000L + partition * 100L + i;
                String value = "{\"id\": " + id
                        + ", \"name\": " + (i % 4 == 0 ? "null" : "\"name " + id + "\"")
                        + (i % 3 == 0 ? "" : ", \"price\": " + (id * 1.25))
                        + ", \"active\": " + (id % 2 == 0)
                        + ", \"day\": \"2026-03-" + String.format(java.util.Locale.ROOT, "%02d", 1 + i) + "\""
                        + ", \"at\": \"2026-03-01T10:00:" + String.format(java.util.Locale.ROOT, "%02d", i)
                        + ".123456Z\""
                        + ", \"tags\": [\"t" + i + "\", \"r" + round + "\"]"
                        + ", \"address\": {\"city\": \"city " + partition + "\", \"zip\": " + (10000 + id) + "}"
                        + (withNote ? ", \"note\": \"note " + id + "\"" : "")
                        + "}";
                byte[] key = i % 2 == 0 ? ("key " + id).getBytes(StandardCharsets.UTF_8) : null;
                Header[] headers = i % 2 == 0
                        ? new Header[] {new RecordHeader("source", ("s" + i).getBytes(StandardCharsets.UTF_8))}
                        : new Header[0];
                records[i] = new SimpleRecord(clock.millis(), key, value.getBytes(StandardCharsets.UTF_8), headers);
            }
            ByteBuffer batch =
                    MemoryRecords.withRecords(Compression.NONE, records).buffer();
            floe.agent.produce().append(topic, partition, batch).join();
        }
    }

    private void poll(TableJobs jobs) {
        TablePolls.poll(clock, jobs);
    }

    private void pollUntilCaughtUp(TableflowHarness floe, TableJobs jobs) {
        TablePolls.untilCaughtUp(floe, TOPIC, clock, jobs, MAX_POLLS);
    }
}
