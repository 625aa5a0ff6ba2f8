package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.CommitFaults.Fault;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.tableflow.table.Watermark;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A table commit whose outcome is lost (the answer of the catalog's swap never arrives, whether or not
 * the swap happened) or that is rejected after the dead-letter commit went through leaves both tables
 * readable by Iceberg's reader, every data file of their current snapshots present, and each record of
 * the topic in exactly one of them exactly once, also after later rounds resume. Rounds are driven one
 * poll at a time on a stepped clock; the faults come from a catalog decorator ({@link CommitFaults}).
 */
@Timeout(180)
class TableCommitFaultIT {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 2;
    private static final String SCHEMA = """
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}""";
    private static final int MAX_POLLS = 200;

    @TempDir
    Path dataDir;

    private CommitFaults faults;
    private TableflowHarness floe;
    private TableJobs jobs;
    private final SteppedClock clock = new SteppedClock();
    private final Set<Long> goodIds = new HashSet<>();
    private final List<String> badValues = new ArrayList<>();
    private Topic topic;

    /** Where the fault strikes: which table's snapshot commit, and how. */
    enum Case {
        ROWS_APPLIED_THEN_UNKNOWN(false, Fault.APPLIED_THEN_UNKNOWN),
        ROWS_CONNECTION_LOST_AFTER_APPLY(false, Fault.CONNECTION_LOST_AFTER_APPLY),
        /** The dead letters are in, the rows are not: as a crash between the two commits leaves it. */
        ROWS_UNKNOWN_NOT_APPLIED_AFTER_DEAD_LETTERS(false, Fault.UNKNOWN_NOT_APPLIED),
        ROWS_REJECTED_AFTER_DEAD_LETTERS(false, Fault.REJECTED),
        DEAD_LETTERS_APPLIED_THEN_UNKNOWN(true, Fault.APPLIED_THEN_UNKNOWN),
        DEAD_LETTERS_CONNECTION_LOST_AFTER_APPLY(true, Fault.CONNECTION_LOST_AFTER_APPLY),
        DEAD_LETTERS_UNKNOWN_NOT_APPLIED(true, Fault.UNKNOWN_NOT_APPLIED),
        DEAD_LETTERS_REJECTED(true, Fault.REJECTED),
        ROWS_MANIFEST_WRITE_FAILS(false, Fault.MANIFEST_WRITE_FAILS),
        DEAD_LETTERS_MANIFEST_WRITE_FAILS(true, Fault.MANIFEST_WRITE_FAILS);

        final boolean deadLetters;
        final Fault fault;

        Case(boolean deadLetters, Fault fault) {
            this.deadLetters = deadLetters;
            this.fault = fault;
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (floe != null) {
            floe.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Case.class)
    void aFailedOrUnknownCommitLeavesEveryRecordReadableExactlyOnce(Case where) {
        start(TableflowConfig.defaults(dataDir.resolve("spool")).maxBytesPerRound());
        produceRound(0);
        pollUntilCaughtUp();

        produceRound(1);
        TableIdentifier target = where.deadLetters ? floe.tables.deadLetterIdentifier(TOPIC) : floe.tables.identifier(TOPIC);
        faults.arm(target, where.fault);
        poll();
        assertThat(faults.fired()).containsExactly(new CommitFaults.Fired(target, where.fault));

        produceRound(2);
        pollUntilCaughtUp();
        assertEveryRecordOnceAndEveryFilePresent();
        // Files stay only where the commit may have applied (orphan removal takes them later if it did
        // not); where it definitely did not, they are gone.
        boolean orphansLeft = where.fault == Fault.UNKNOWN_NOT_APPLIED;
        if (!orphansLeft || where.deadLetters) {
            assertThat(unreferencedDataFiles(floe.tables.identifier(TOPIC))).as("orphan data files of the table")
                    .isEmpty();
        }
        if (!orphansLeft || !where.deadLetters) {
            assertThat(unreferencedDataFiles(floe.tables.deadLetterIdentifier(TOPIC)))
                    .as("orphan data files of the dead-letter table").isEmpty();
        }
    }

    /**
     * One batch per round, partitions taken in turn: the round after a rejected row commit reads the
     * other partition first. The dead-letter watermark must not fall back on the partition whose dead
     * letters the failed round committed, or the round after writes them again.
     */
    @Test
    void theDeadLetterWatermarkNeverFallsBackAfterARejectedRowCommit() {
        start(1);
        produceRound(0);
        pollUntilCaughtUp();

        produceRound(1);
        faults.arm(floe.tables.identifier(TOPIC), Fault.REJECTED);
        poll();
        assertThat(faults.fired()).hasSize(1);
        pollUntilCaughtUp();
        produceRound(2);
        pollUntilCaughtUp();
        assertEveryRecordOnceAndEveryFilePresent();
    }

    private void start(long maxBytesPerRound) {
        floe = new TableflowHarness(dataDir, catalog -> faults = new CommitFaults(catalog));
        jobs = new TableJobs(TableflowConfig.defaults(dataDir.resolve("spool")).withMaxBytesPerRound(maxBytesPerRound),
                "agent-1", floe.metadata, new CommittedLog(floe.metadata, floe.objects), floe.tables, clock,
                floe.meters);
        topic = floe.agent.topics().create(new NewTopic(TOPIC, PARTITIONS, Map.of("floe.tableflow.enabled", "true",
                "floe.tableflow.format", "json", "floe.tableflow.schema", SCHEMA,
                "floe.tableflow.commit.interval.ms", "1")), false);
    }

    /** One batch on each partition: ten records, three of them not JSON (dead letters). */
    private void produceRound(int round) {
        for (int partition = 0; partition < PARTITIONS; partition++) {
            SimpleRecord[] records = new SimpleRecord[10];
            for (int i = 0; i < records.length; i++) {
                long id = round * 1000L + partition * 100L + i;
                String value;
                if (i % 3 == 1) {
                    value = "not json " + id;
                    badValues.add(value);
                } else {
                    value = "{\"id\": " + id + "}";
                    goodIds.add(id);
                }
                records[i] = new SimpleRecord(clock.millis(), null, value.getBytes(StandardCharsets.UTF_8));
            }
            ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE, records).buffer();
            floe.agent.produce().append(topic, partition, batch).join();
        }
    }

    private void poll() {
        clock.step(Duration.ofSeconds(1));
        jobs.poll();
    }

    private void pollUntilCaughtUp() {
        long[] ends = new long[PARTITIONS];
        for (int partition = 0; partition < PARTITIONS; partition++) {
            ends[partition] = floe.metadata.offsets(new TopicPartition(TOPIC, partition)).highWatermark();
        }
        for (int polls = 0; polls < MAX_POLLS; polls++) {
            Watermark mark = floe.tables.load(TOPIC).flatMap(Watermark::of).orElse(null);
            boolean caughtUp = mark != null;
            for (int partition = 0; partition < PARTITIONS && caughtUp; partition++) {
                caughtUp = mark.next(partition) >= ends[partition];
            }
            if (caughtUp) {
                return;
            }
            poll();
        }
        throw new AssertionError("the table did not reach " + java.util.Arrays.toString(ends) + " in " + MAX_POLLS
                + " rounds: " + floe.tables.load(TOPIC).flatMap(Watermark::of));
    }

    private void assertEveryRecordOnceAndEveryFilePresent() {
        Table table = floe.tables.load(TOPIC).orElseThrow();
        Table deadLetters = floe.tables.loadDeadLetters(TOPIC).orElseThrow();
        assertThat(missingFiles(table)).as("data files of the table's current snapshot that do not exist").isEmpty();
        assertThat(missingFiles(deadLetters)).as("data files of the dead-letter table that do not exist").isEmpty();

        List<Record> rows = TableflowHarness.rows(table);
        List<Record> dead = TableflowHarness.rows(deadLetters);
        assertThat(rows).extracting(row -> (Long) row.getField("id")).containsExactlyInAnyOrderElementsOf(goodIds);
        assertThat(dead).extracting(row -> StandardCharsets.UTF_8.decode(((ByteBuffer) row.getField(Rows.DEAD_VALUE))
                .duplicate()).toString()).containsExactlyInAnyOrderElementsOf(badValues);
        List<String> positions = new ArrayList<>();
        for (Record row : rows) {
            positions.add(row.getField(Rows.PARTITION) + "/" + row.getField(Rows.OFFSET));
        }
        for (Record row : dead) {
            positions.add(row.getField(Rows.PARTITION) + "/" + row.getField(Rows.OFFSET));
        }
        List<String> expected = new ArrayList<>();
        for (int partition = 0; partition < PARTITIONS; partition++) {
            long end = floe.metadata.offsets(new TopicPartition(TOPIC, partition)).highWatermark();
            for (long offset = 0; offset < end; offset++) {
                expected.add(partition + "/" + offset);
            }
        }
        assertThat(positions).as("every offset in exactly one table, once").containsExactlyInAnyOrderElementsOf(expected);
    }

    /** Data files under the table's directory that its current snapshot does not reference. */
    private List<String> unreferencedDataFiles(TableIdentifier identifier) {
        Table table = floe.catalog.loadTable(identifier);
        Set<String> referenced = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> referenced.add(task.file().location()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String prefix = "tables/" + identifier.namespace() + "/" + identifier.name() + "/data/";
        List<String> unreferenced = new ArrayList<>();
        assertThat(floe.objects.list(prefix)).as("data files under %s", prefix).hasSizeGreaterThanOrEqualTo(
                referenced.size()).isNotEmpty();
        for (var object : floe.objects.list(prefix)) {
            String key = object.key().value();
            if (referenced.stream().noneMatch(location -> location.endsWith("/" + key))) {
                unreferenced.add(key);
            }
        }
        return unreferenced;
    }

    private static List<String> missingFiles(Table table) {
        List<String> missing = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                if (!table.io().newInputFile(task.file().location()).exists()) {
                    missing.add(task.file().location());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return missing;
    }
}
