package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.delta.DeltaReads;
import io.floe.tableflow.delta.DeltaRetirement;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.testkit.time.ManualClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic published as Iceberg and Delta through a real agent, its job driven one poll at a time on a
 * clock stepped by hours and days: the Delta log's deleted-file retention is the table's snapshot
 * retention (a day), counted from when the log removed a file, which is after the snapshots that held
 * it were written; so once the job's maintenance expired those snapshots, Delta Kernel still reads an
 * older Delta version (every file it lists, the same rows) until the log's tombstones expire. Then the
 * files go, past the log retention the log's expired files go, and the latest Delta version always
 * reads the Iceberg table's rows.
 */
@Timeout(180)
class DeltaRetentionIT {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 2;
    private static final int MAX_POLLS = 50;

    @TempDir
    Path dataDir;

    /** Starts at the wall clock: the Delta log's ages are its objects' modification times. */
    private final ManualClock clock = new ManualClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));

    @Test
    void olderDeltaVersionsStayReadableForTheRetentionThenTheirFilesAndTheExpiredLogGo() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir)) {
            TableJobs jobs = new TableJobs(
                    TableflowConfig.defaults(dataDir.resolve("spool")),
                    "agent-1",
                    TableflowMetadata.of(floe.metadata),
                    new CommittedLog(floe.metadata, floe.objects),
                    floe.tables,
                    clock,
                    floe.meters);
            // No compaction at first: every snapshot that holds the first files is written now.
            Map<String, String> configs = new HashMap<>(Map.of(
                    TableflowConfigs.ENABLED, "true",
                    TableflowConfigs.COMMIT_INTERVAL_MS, "1",
                    TableflowConfigs.DELTA_ENABLED, "true",
                    TableflowConfigs.COMPACTION_TRIGGER_FILES, "1000"));
            Topic topic = floe.agent.topics().create(new NewTopic(TOPIC, PARTITIONS, configs), false);
            produce(floe, topic, 1);
            pollUntilCaughtUp(floe, jobs);
            produce(floe, topic, 2);
            pollUntilCaughtUp(floe, jobs);
            long first = latestVersion(floe);
            List<String> firstFiles = new ArrayList<>();
            List<Map<String, Object>> firstRows = read(floe, first, firstFiles);
            assertThat(firstRows).hasSize(2 * PARTITIONS * 10);
            for (int round = 3; round <= 12; round++) {
                produce(floe, topic, round);
                pollUntilCaughtUp(floe, jobs);
            }
            assertThat(logNames(floe)).contains("00000000000000000010.checkpoint.parquet");

            // Twelve hours on, a compaction replaces the first files: the Delta log removes them then.
            clock.step(Duration.ofHours(12));
            configs.put(TableflowConfigs.COMPACTION_TRIGGER_FILES, "3");
            floe.agent.topics().setConfigs(TOPIC, configs);
            for (int polls = 0;
                    counter(floe, "floe.tableflow.maintenance.files.rewritten") < firstFiles.size();
                    polls++) {
                assertThat(polls)
                        .as("polls until a compaction replaced the first files")
                        .isLessThan(MAX_POLLS);
                poll(jobs);
            }
            // A round after it: the snapshots back to the newest watermark, which expiry keeps, no longer
            // hold the first files.
            produce(floe, topic, 13);
            pollUntilCaughtUp(floe, jobs);
            assertLatestIsTheIcebergTable(floe);

            // A day after the snapshots that held them, Iceberg expires those snapshots; the Delta log removed
            // the files only 13 hours ago, so they stay, and its older version still reads.
            clock.step(Duration.ofHours(13));
            poll(jobs);
            assertThat(counter(floe, "floe.tableflow.maintenance.snapshots.expired"))
                    .isPositive();
            assertThat(DeltaReads.deltaFilesAt(floe.objects, floe.io.locations(), location(floe), first))
                    .containsExactlyInAnyOrderElementsOf(firstFiles);
            assertThat(keys(floe)).as("files of delta version %s", first).containsAll(keys(floe, firstFiles));
            assertThat(read(floe, first, new ArrayList<>())).containsExactlyInAnyOrderElementsOf(firstRows);
            assertThat(counter(floe, "floe.tableflow.maintenance.files.kept.for.delta"))
                    .isPositive();

            // A day after the Delta log removed them, they go.
            clock.step(Duration.ofHours(12));
            poll(jobs);
            assertThat(keys(floe)).doesNotContainAnyElementsOf(keys(floe, firstFiles));
            assertLatestIsTheIcebergTable(floe);

            // A month after the log was written, the versions before its newest checkpoint go.
            clock.step(Duration.ofDays(31));
            poll(jobs);
            assertLatestIsTheIcebergTable(floe);
            assertThat(counter(floe, "floe.tableflow.maintenance.delta.log.files.removed"))
                    .isPositive();
            assertThat(logNames(floe))
                    .doesNotContain("00000000000000000000.json", "00000000000000000009.json")
                    .contains("00000000000000000010.checkpoint.parquet", "_last_checkpoint");
            assertThat(counter(floe, "floe.tableflow.maintenance.failures")).isZero();
            assertThat(counter(floe, "floe.tableflow.delta.failures")).isZero();
        }
    }

    /**
     * Turning Delta off freezes the log at its last version: it stays readable, and keeps its files, for the
     * table's snapshot retention from when the job's maintenance first saw it off; then the files only it
     * kept go with the log itself. (The log once stayed for good and kept its files from orphan removal.)
     */
    @Test
    void aDeltaLogTurnedOffStaysReadableForTheRetentionThenItAndTheFilesOnlyItKeptGo() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir)) {
            TableJobs jobs = new TableJobs(
                    TableflowConfig.defaults(dataDir.resolve("spool")),
                    "agent-1",
                    TableflowMetadata.of(floe.metadata),
                    new CommittedLog(floe.metadata, floe.objects),
                    floe.tables,
                    clock,
                    floe.meters);
            Map<String, String> configs = new HashMap<>(Map.of(
                    TableflowConfigs.ENABLED, "true",
                    TableflowConfigs.COMMIT_INTERVAL_MS, "1",
                    TableflowConfigs.DELTA_ENABLED, "true",
                    TableflowConfigs.COMPACTION_TRIGGER_FILES, "1000"));
            Topic topic = floe.agent.topics().create(new NewTopic(TOPIC, PARTITIONS, configs), false);
            for (int round = 1; round <= 3; round++) {
                produce(floe, topic, round);
                pollUntilCaughtUp(floe, jobs);
            }
            long frozen = latestVersion(floe);
            List<String> frozenFiles = new ArrayList<>();
            List<Map<String, Object>> frozenRows = read(floe, frozen, frozenFiles);
            assertThat(frozenRows).hasSize(3 * PARTITIONS * 10);

            // Delta off; then a compaction replaces the files the frozen log reads, and a round follows.
            configs.put(TableflowConfigs.DELTA_ENABLED, "false");
            configs.put(TableflowConfigs.COMPACTION_TRIGGER_FILES, "3");
            floe.agent.topics().setConfigs(TOPIC, configs);
            produce(floe, topic, 4);
            pollUntilCaughtUp(floe, jobs);
            produce(floe, topic, 5);
            pollUntilCaughtUp(floe, jobs);
            assertThat(counter(floe, "floe.tableflow.maintenance.files.rewritten"))
                    .isGreaterThanOrEqualTo(frozenFiles.size());
            assertThat(latestVersion(floe)).as("nothing mirrored any more").isEqualTo(frozen);

            // At the next maintenance interval the job sees Delta off: the log goes a day (the retention) later.
            clock.step(Duration.ofHours(1));
            poll(jobs);
            assertThat(floe.tables.load(TOPIC).orElseThrow().properties())
                    .containsKey(DeltaRetirement.RETIRED_AFTER_PROPERTY);

            // A day after the snapshots that held them, Iceberg expires them; the frozen log keeps their files.
            // (Snapshots carry the wall clock's time: half an hour of margin for the test's own run time.)
            clock.step(Duration.ofHours(23).plusMinutes(30));
            poll(jobs);
            assertThat(counter(floe, "floe.tableflow.maintenance.files.kept.for.delta"))
                    .isPositive();
            assertThat(keys(floe)).as("the frozen log's files").containsAll(keys(floe, frozenFiles));
            assertThat(read(floe, frozen, new ArrayList<>())).containsExactlyInAnyOrderElementsOf(frozenRows);

            // Past the day: the files only the log kept, and the log, go.
            clock.step(Duration.ofHours(2));
            poll(jobs);
            assertThat(keys(floe)).doesNotContainAnyElementsOf(keys(floe, frozenFiles));
            assertThat(logNames(floe)).as("the delta log").isEmpty();
            assertThat(floe.tables.load(TOPIC).orElseThrow().properties())
                    .doesNotContainKey(DeltaRetirement.RETIRED_AFTER_PROPERTY);
            assertThat(TableflowHarness.rows(floe.tables.load(TOPIC).orElseThrow()))
                    .as("the Iceberg table is whole")
                    .hasSize(5 * PARTITIONS * 10);
            assertThat(counter(floe, "floe.tableflow.maintenance.failures")).isZero();

            // Turned on again, a new log starts and mirrors the table.
            configs.put(TableflowConfigs.DELTA_ENABLED, "true");
            floe.agent.topics().setConfigs(TOPIC, configs);
            produce(floe, topic, 6);
            pollUntilCaughtUp(floe, jobs);
            assertLatestIsTheIcebergTable(floe);
        }
    }

    private static long latestVersion(TableflowHarness floe) {
        return DeltaReads.latestVersion(floe.objects, floe.io.locations(), location(floe));
    }

    private static List<Map<String, Object>> read(TableflowHarness floe, long version, List<String> files) {
        return DeltaReads.deltaRowsAt(floe.objects, floe.io.locations(), location(floe), version, files);
    }

    private static void assertLatestIsTheIcebergTable(TableflowHarness floe) {
        var table = floe.tables.load(TOPIC).orElseThrow();
        assertThat(DeltaReads.deltaRows(floe.objects, floe.io.locations(), location(floe)))
                .containsExactlyInAnyOrderElementsOf(DeltaReads.icebergRows(table, TableflowHarness.rows(table)));
    }

    private static String location(TableflowHarness floe) {
        String location = floe.tables.load(TOPIC).orElseThrow().location();
        return floe.io.locations().location(floe.io.locations().key(location));
    }

    private static Set<String> keys(TableflowHarness floe) {
        return floe.objects.list(floe.io.locations().keyPrefix(location(floe))).stream()
                .map(info -> info.key().value())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> keys(TableflowHarness floe, List<String> locations) {
        return locations.stream()
                .map(location -> floe.io.locations().key(location).value())
                .collect(Collectors.toSet());
    }

    private static Set<String> logNames(TableflowHarness floe) {
        String prefix = floe.io.locations().keyPrefix(location(floe) + "/_delta_log");
        return floe.objects.list(prefix).stream()
                .map(info -> info.key().value().substring(prefix.length()))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static double counter(TableflowHarness floe, String name) {
        return floe.meters.find(name).tag("topic", TOPIC).counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count)
                .sum();
    }

    /** Ten raw records per partition. */
    private void produce(TableflowHarness floe, Topic topic, int round) {
        for (int partition = 0; partition < PARTITIONS; partition++) {
            SimpleRecord[] records = new SimpleRecord[10];
            for (int i = 0; i < records.length; i++) {
                String value = "order " + round + "/" + partition + "/" + i;
                records[i] = new SimpleRecord(clock.millis(), null, value.getBytes(StandardCharsets.UTF_8));
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
