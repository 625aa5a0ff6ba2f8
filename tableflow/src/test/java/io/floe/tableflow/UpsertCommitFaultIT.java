package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.CommitFaults.Fault;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.testkit.time.ManualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An upsert table's row-delta commit whose outcome is lost, that fails before the swap, or that is
 * rejected: after later rounds the table still holds exactly the newest row of every key (one row
 * per key, deleted keys absent) and every data and delete file of its snapshot exists. The job's key
 * index must not trust a commit it cannot see in the table: when it assumes a lost commit applied,
 * or one that applied did not, a key ends up with two rows or none. Each fault runs with the key
 * index in memory and with every round looking its keys up in the table's files.
 */
@Timeout(180)
class UpsertCommitFaultIT {

    private static final String TOPIC = "accounts";
    private static final int PARTITIONS = 2;
    private static final int MAX_POLLS = 200;
    private static final String SCHEMA = """
            {"type": "object", "properties": {"balance": {"type": "integer"}}, "required": ["balance"]}""";

    @TempDir
    Path dataDir;

    private final ManualClock clock = new ManualClock();
    private final Map<String, Long> expected = new TreeMap<>();
    private CommitFaults faults;
    private TableflowHarness floe;
    private TableJobs jobs;
    private Topic topic;

    @AfterEach
    void stop() throws Exception {
        if (floe != null) {
            floe.close();
        }
    }

    /** Every fault, with the key index in memory (the default bound) and with every round looking its keys up. */
    static Stream<Arguments> faults() {
        return Stream.of(Fault.values())
                .flatMap(fault -> Stream.of(Arguments.of(fault, "500000"), Arguments.of(fault, "0")));
    }

    @ParameterizedTest(name = "{0} index.max.keys={1}")
    @MethodSource("faults")
    void aFailedOrUnknownUpsertCommitLeavesTheNewestRowOfEveryKeyOnce(Fault fault, String indexMaxKeys) {
        start(indexMaxKeys);
        produceRound(0);
        pollUntilCaughtUp();

        produceRound(1);
        TableIdentifier table = floe.tables.identifier(TOPIC);
        faults.arm(table, fault);
        poll();
        assertThat(faults.fired()).containsExactly(new CommitFaults.Fired(table, fault));

        produceRound(2);
        pollUntilCaughtUp();
        produceRound(3);
        pollUntilCaughtUp();
        assertNewestRowOfEveryKeyAndEveryFilePresent();
    }

    private void start(String indexMaxKeys) {
        floe = new TableflowHarness(dataDir, catalog -> faults = new CommitFaults(catalog));
        jobs = new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool")),
                "agent-1",
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                floe.meters);
        topic = floe.agent
                .topics()
                .create(
                        new NewTopic(
                                TOPIC,
                                PARTITIONS,
                                Map.of(
                                        "floe.tableflow.enabled", "true",
                                        "floe.tableflow.mode", "upsert",
                                        "floe.tableflow.format", "json",
                                        "floe.tableflow.schema", SCHEMA,
                                        "floe.tableflow.commit.interval.ms", "1",
                                        "floe.tableflow.upsert.index.max.keys", indexMaxKeys)),
                        false);
    }

    /**
     * One batch on each partition: twelve records over five keys of that partition, every fourth a
     * tombstone, so each round updates and deletes rows of earlier rounds.
     */
    private void produceRound(int round) {
        for (int partition = 0; partition < PARTITIONS; partition++) {
            SimpleRecord[] records = new SimpleRecord[12];
            for (int i = 0; i < records.length; i++) {
                String key = "p" + partition + "-k" + ((i + round) % 5);
                long balance = round * 1000L + partition * 100L + i;
                boolean tombstone = (i + round) % 4 == 3;
                byte[] value = tombstone ? null : ("{\"balance\": " + balance + "}").getBytes(StandardCharsets.UTF_8);
                records[i] = new SimpleRecord(clock.millis(), key.getBytes(StandardCharsets.UTF_8), value);
                if (tombstone) {
                    expected.remove(key);
                } else {
                    expected.put(key, balance);
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

    private void poll() {
        clock.step(Duration.ofSeconds(1));
        jobs.poll();
    }

    private void pollUntilCaughtUp() {
        List<Long> ends = floe.stableEnds(TOPIC);
        for (int polls = 0; polls < MAX_POLLS; polls++) {
            if (floe.tables
                    .load(TOPIC)
                    .filter(table -> TableflowHarness.reaches(table, ends))
                    .isPresent()) {
                return;
            }
            poll();
        }
        throw new AssertionError("the table did not reach " + ends + " in " + MAX_POLLS + " rounds");
    }

    private void assertNewestRowOfEveryKeyAndEveryFilePresent() {
        Table table = floe.tables.load(TOPIC).orElseThrow();
        List<String> missing = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                List<ContentFile<?>> files = new ArrayList<>(task.deletes());
                files.add(task.file());
                files.stream()
                        .map(ContentFile::location)
                        .filter(location -> !table.io().newInputFile(location).exists())
                        .forEach(missing::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(missing)
                .as("data and delete files of the current snapshot that do not exist")
                .isEmpty();
        Map<String, Long> actual = new TreeMap<>();
        for (Record row : TableflowHarness.rows(table)) {
            String key = StandardCharsets.UTF_8
                    .decode(((ByteBuffer) row.getField(Rows.KEY)).duplicate())
                    .toString();
            assertThat(actual.put(key, (Long) row.getField("balance")))
                    .as("a second row of key %s", key)
                    .isNull();
        }
        assertThat(actual).isEqualTo(expected);
    }
}
