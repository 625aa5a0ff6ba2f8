package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.tableflow.table.Watermark;
import io.floe.testkit.time.ManualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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

/**
 * A JSON topic whose table job the test drives one poll at a time on a stepped clock, with what it
 * produced remembered, and the checks that the two tables hold it: readable, every data file present,
 * each record in exactly one table exactly once.
 */
final class JsonRounds {

    static final String TOPIC = "orders";
    static final int PARTITIONS = 2;
    private static final String SCHEMA = """
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}""";
    private static final int MAX_POLLS = 200;

    final TableflowHarness floe;
    final ManualClock clock = new ManualClock();
    private final TableJobs jobs;
    private final Topic topic;
    private final Set<Long> goodIds = new HashSet<>();
    private final List<String> badValues = new ArrayList<>();

    JsonRounds(TableflowHarness floe, Path spool, long maxBytesPerRound) {
        this.floe = floe;
        jobs = new TableJobs(
                TableflowConfig.defaults(spool).withMaxBytesPerRound(maxBytesPerRound),
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
                                        "floe.tableflow.enabled",
                                        "true",
                                        "floe.tableflow.format",
                                        "json",
                                        "floe.tableflow.schema",
                                        SCHEMA,
                                        "floe.tableflow.commit.interval.ms",
                                        "1")),
                        false);
    }

    /** One batch on each partition: ten records, three of them not JSON (dead letters) unless told otherwise. */
    void produceRound(int round, boolean withDeadLetters) {
        for (int partition = 0; partition < PARTITIONS; partition++) {
            SimpleRecord[] records = new SimpleRecord[10];
            for (int i = 0; i < records.length; i++) {
                long id = round * 1000L + partition * 100L + i;
                String value;
                if (withDeadLetters && i % 3 == 1) {
                    value = "not json " + id;
                    badValues.add(value);
                } else {
                    value = "{\"id\": " + id + "}";
                    goodIds.add(id);
                }
                records[i] = new SimpleRecord(clock.millis(), null, value.getBytes(StandardCharsets.UTF_8));
            }
            ByteBuffer batch =
                    MemoryRecords.withRecords(Compression.NONE, records).buffer();
            floe.agent.produce().append(topic, partition, batch).join();
        }
    }

    void poll() {
        clock.step(Duration.ofSeconds(1));
        jobs.poll();
    }

    void pollUntilCaughtUp() {
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
        throw new AssertionError("the table did not reach " + ends + " in " + MAX_POLLS + " rounds: "
                + floe.tables.load(TOPIC).flatMap(Watermark::of));
    }

    void assertEveryRecordOnceAndEveryFilePresent() {
        Table table = floe.tables.load(TOPIC).orElseThrow();
        Table deadLetters = floe.tables.loadDeadLetters(TOPIC).orElseThrow();
        assertThat(missingFiles(table))
                .as("data files of the table's current snapshot that do not exist")
                .isEmpty();
        assertThat(missingFiles(deadLetters))
                .as("data files of the dead-letter table that do not exist")
                .isEmpty();

        List<Record> rows = TableflowHarness.rows(table);
        List<Record> dead = TableflowHarness.rows(deadLetters);
        assertThat(rows).extracting(row -> (Long) row.getField("id")).containsExactlyInAnyOrderElementsOf(goodIds);
        assertThat(dead)
                .extracting(row -> StandardCharsets.UTF_8
                        .decode(((ByteBuffer) row.getField(Rows.DEAD_VALUE)).duplicate())
                        .toString())
                .containsExactlyInAnyOrderElementsOf(badValues);
        List<String> positions = new ArrayList<>();
        for (Record row : rows) {
            positions.add(row.getField(Rows.PARTITION) + "/" + row.getField(Rows.OFFSET));
        }
        for (Record row : dead) {
            positions.add(row.getField(Rows.PARTITION) + "/" + row.getField(Rows.OFFSET));
        }
        List<String> expected = new ArrayList<>();
        for (int partition = 0; partition < PARTITIONS; partition++) {
            long end =
                    floe.metadata.offsets(new TopicPartition(TOPIC, partition)).highWatermark();
            for (long offset = 0; offset < end; offset++) {
                expected.add(partition + "/" + offset);
            }
        }
        assertThat(positions)
                .as("every offset in exactly one table, once")
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    /** Data files under the table's directory that its current snapshot does not reference. */
    List<String> unreferencedDataFiles(TableIdentifier identifier) {
        Table table = floe.catalog.loadTable(identifier);
        Set<String> referenced = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> referenced.add(task.file().location()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String prefix = "tables/" + identifier.namespace() + "/" + identifier.name() + "/data/";
        List<String> unreferenced = new ArrayList<>();
        assertThat(floe.objects.list(prefix))
                .as("data files under %s", prefix)
                .hasSizeGreaterThanOrEqualTo(referenced.size())
                .isNotEmpty();
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
