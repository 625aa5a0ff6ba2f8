package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.ObjectInfo;
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
import java.util.TreeMap;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upsert table published as Delta too, its job driven one poll at a time on a stepped clock,
 * through inserts, updates, tombstones, compactions and Delta commits a crash skipped. After every
 * step Delta Kernel's reader returns by value exactly the rows Iceberg's reader returns, which are the
 * newest row of every key the log implies, and every data file of the latest Delta version carries the
 * very Puffin blob Iceberg's snapshot pairs it with as its deletion vector.
 */
@Timeout(180)
class DeltaUpsertIT {

    private static final String TOPIC = "accounts";
    private static final int PARTITIONS = 2;
    private static final int KEYS_PER_PARTITION = 50;
    private static final int MAX_POLLS = 50;
    private static final String SCHEMA = """
            {"type": "object", "required": ["id", "balance"], "properties": {
              "id": {"type": "integer"},
              "balance": {"type": "integer"},
              "note": {"type": ["string", "null"]}}}""";

    @TempDir
    Path dataDir;

    private final ManualClock clock = new ManualClock();
    private final Map<String, ByteBuffer> logSeen = new TreeMap<>();
    /** The newest balance of every live key, as the produced records imply. */
    private final Map<String, Long> expected = new TreeMap<>();

    private TableflowHarness floe;
    private Topic topic;
    private Map<String, String> configs;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir);
        configs = new HashMap<>(Map.of(
                TableflowConfigs.ENABLED, "true",
                TableflowConfigs.MODE, "upsert",
                TableflowConfigs.FORMAT, "json",
                TableflowConfigs.SCHEMA, SCHEMA,
                TableflowConfigs.COMMIT_INTERVAL_MS, "1",
                TableflowConfigs.DELTA_ENABLED, "true"));
        topic = floe.agent.topics().create(new NewTopic(TOPIC, PARTITIONS, configs), false);
    }

    @AfterEach
    void stop() throws Exception {
        floe.close();
    }

    @Test
    void deltaReadersSeeTheNewestRowOfEveryKeyThroughUpdatesDeletesAndCompactions() {
        TableJobs jobs = jobs();
        for (int round = 0; round < 8; round++) {
            produce(round);
            pollUntilCaughtUp(jobs);
            assertMirrored();
        }

        Table table = floe.tables.load(TOPIC).orElseThrow();
        List<Snapshot> history = new ArrayList<>();
        table.snapshots().forEach(history::add);
        assertThat(history)
                .as("rounds hid replaced rows with deletion vectors")
                .anyMatch(snapshot -> Long.parseLong(snapshot.summary().getOrDefault("added-dvs", "0")) > 0);
        assertThat(history)
                .as("a round replaced a file's deletion vector by a newer one")
                .anyMatch(snapshot -> Long.parseLong(snapshot.summary().getOrDefault("removed-dvs", "0")) > 0
                        && !snapshot.summary().containsKey("floe.compacted-at"));
        assertThat(history)
                .as("a compaction dropped the hidden rows and their vectors")
                .anyMatch(snapshot -> snapshot.summary().containsKey("floe.compacted-at")
                        && Long.parseLong(snapshot.summary().getOrDefault("removed-dvs", "0")) > 0);
        String log = DeltaLogs.commitText(floe, TOPIC);
        assertThat(log)
                .as("the protocol has Delta's deletion vector feature for readers and writers")
                .containsPattern("\"readerFeatures\":\\[[^]]*\"deletionVectors\"")
                .containsPattern("\"writerFeatures\":\\[[^]]*\"deletionVectors\"")
                .contains("\"delta.enableDeletionVectors\":\"true\"");
        assertThat(log)
                .as("vectors stored at absolute paths, in the Puffin files Iceberg wrote")
                .containsPattern(
                        "\"deletionVector\":\\{\"storageType\":\"p\",\"pathOrInlineDv\":\"file:[^\"]*\\.puffin\"");
        assertThat(log)
                .as("a replaced vector is a remove of the old and an add of the new, both changing data")
                .containsPattern("\"remove\":\\{[^\\n]*\"dataChange\":true[^\\n]*\"deletionVector\":\\{");
        assertThat(log)
                .as("a compaction removes files with their vectors without changing data")
                .containsPattern("\"remove\":\\{[^\\n]*\"dataChange\":false[^\\n]*\"deletionVector\":\\{");
        assertThat(floe.objects.list(DeltaLogs.prefix(floe, TOPIC)))
                .as("a checkpoint, which holds the live files with their deletion vectors")
                .anyMatch(info -> info.key().value().endsWith(".checkpoint.parquet"));
        assertMirrored(); // read again, through the checkpoint
        assertThat(counter("floe.tableflow.delta.failures")).isZero();
    }

    @Test
    void deltaCommitsACrashSkippedAreCaughtUpByTheNextRound() {
        TableJobs jobs = jobs();
        for (int round = 0; round < 2; round++) {
            produce(round);
            pollUntilCaughtUp(jobs);
            assertMirrored();
        }

        // Upsert rounds commit to Iceberg while no Delta commit follows (as when the agent dies between the
        // two): the deletion vector of a file is replaced, then replaced again, and the Delta log lags.
        configs.put(TableflowConfigs.DELTA_ENABLED, "false");
        floe.agent.topics().setConfigs(TOPIC, configs);
        for (int round = 2; round < 5; round++) {
            produce(round);
            pollUntilCaughtUp(jobs);
        }
        Table table = floe.tables.load(TOPIC).orElseThrow();
        assertThat(DeltaLogs.mirroredSequence(floe, TOPIC))
                .isLessThan(table.currentSnapshot().sequenceNumber());
        assertThat(DeltaReads.deltaRows(floe.objects, floe.io.locations(), DeltaLogs.location(floe, TOPIC)))
                .as("the lagging Delta log still reads as the table was")
                .isNotEqualTo(DeltaReads.icebergRows(table, TableflowHarness.rows(table)));

        // Another agent (a new job, nothing in memory) takes the table over: its first round catches up.
        configs.put(TableflowConfigs.DELTA_ENABLED, "true");
        floe.agent.topics().setConfigs(TOPIC, configs);
        TableJobs restarted = jobs();
        poll(restarted);
        assertMirrored();
        produce(5);
        pollUntilCaughtUp(restarted);
        assertMirrored();
        assertThat(counter("floe.tableflow.delta.failures")).isZero();
    }

    private TableJobs jobs() {
        return new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool")),
                "agent-1",
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                floe.meters);
    }

    /**
     * The Delta log at the Iceberg table's current snapshot: the same rows by value (the newest row of
     * every key), each data file with the Iceberg snapshot's deletion vector, the snapshot's sequence
     * number as its transaction, and no earlier commit file changed.
     */
    private void assertMirrored() {
        Table table = floe.tables.load(TOPIC).orElseThrow();
        List<Record> records = TableflowHarness.rows(table);
        assertThat(UpsertRounds.balancesByKey(records))
                .as("the Iceberg table's rows")
                .isEqualTo(expected);
        List<Map<String, Object>> iceberg = DeltaReads.icebergRows(table, records);
        List<Map<String, Object>> delta =
                DeltaReads.deltaRows(floe.objects, floe.io.locations(), DeltaLogs.location(floe, TOPIC));
        assertThat(delta).as("rows read through the Delta log").containsExactlyInAnyOrderElementsOf(iceberg);
        assertThat(DeltaReads.deltaVectors(floe.objects, floe.io.locations(), DeltaLogs.location(floe, TOPIC)))
                .as("files and deletion vectors of the latest Delta version")
                .isEqualTo(icebergVectors(table));
        assertThat(DeltaLogs.mirroredSequence(floe, TOPIC))
                .isEqualTo(table.currentSnapshot().sequenceNumber());
        assertThat(new DeltaMirror(new DeltaMetrics(new SimpleMeterRegistry(), TOPIC), clock)
                        .sync(table, Duration.ofDays(1)))
                .as("a fresh mirror of the table finds nothing to do")
                .isEqualTo(DeltaMirror.Outcome.UP_TO_DATE);
        assertLogOnlyGrew();
    }

    /**
     * Iceberg's data files and, per the two specs, the Delta descriptor of each one's deletion vector:
     * the Puffin blob's offset, its length less the 4-byte length prefix and the 4-byte checksum, and the
     * rows it deletes.
     */
    private Map<String, String> icebergVectors(Table table) {
        Map<String, String> vectors = new TreeMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                assertThat(task.deletes()).hasSizeLessThanOrEqualTo(1);
                String vector = "none";
                for (DeleteFile dv : task.deletes()) {
                    vector = normal(dv.location()) + "@" + dv.contentOffset() + "+" + (dv.contentSizeInBytes() - 8)
                            + "#" + dv.recordCount();
                }
                vectors.put(normal(task.file().location()), vector);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return vectors;
    }

    /** Every Delta commit file seen before is still there, byte for byte. */
    private void assertLogOnlyGrew() {
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

    private String normal(String location) {
        return floe.io.locations().location(floe.io.locations().key(location));
    }

    private double counter(String name) {
        return floe.meters.find(name).counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count)
                .sum();
    }

    /**
     * One batch per partition. Round 0 inserts every key of the partition; each later round changes
     * three of them (some by a tombstone, a deleted key coming back later), so a round hides fewer than
     * a tenth of a large file's rows and the file's deletion vector is replaced by a larger one round
     * after round, until compaction rewrites the file without them.
     */
    private void produce(int round) {
        for (int partition = 0; partition < PARTITIONS; partition++) {
            int count = round == 0 ? KEYS_PER_PARTITION : 3;
            SimpleRecord[] records = new SimpleRecord[count];
            for (int i = 0; i < count; i++) {
                int key = round == 0 ? i : (round * 7 + i * 17) % KEYS_PER_PARTITION;
                String name = "p" + partition + "-k" + key;
                long balance = round * 1000L + partition * 100L + i;
                boolean tombstone = round > 0 && (round + i) % 4 == 3;
                String value = "{\"id\": " + (partition * 100 + key) + ", \"balance\": " + balance
                        + (i % 3 == 0 ? "" : ", \"note\": \"round " + round + "\"") + "}";
                records[i] = new SimpleRecord(
                        clock.millis(),
                        name.getBytes(StandardCharsets.UTF_8),
                        tombstone ? null : value.getBytes(StandardCharsets.UTF_8));
                if (tombstone) {
                    expected.remove(name);
                } else {
                    expected.put(name, balance);
                }
            }
            floe.agent
                    .produce()
                    .append(
                            topic,
                            partition,
                            MemoryRecords.withRecords(Compression.NONE, records).buffer())
                    .join();
        }
    }

    private void poll(TableJobs jobs) {
        TablePolls.poll(clock, jobs);
    }

    private void pollUntilCaughtUp(TableJobs jobs) {
        TablePolls.untilCaughtUp(floe, TOPIC, clock, jobs, MAX_POLLS);
    }
}
