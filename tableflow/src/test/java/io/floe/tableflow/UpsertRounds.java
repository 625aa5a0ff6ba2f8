package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.rows.Rows;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * An upsert topic whose table job the test drives one poll at a time on a stepped clock, with the
 * newest value of every key it produced remembered, and the check that the table holds exactly that.
 * {@link #restart} replaces the jobs by another agent's, with nothing in memory from the old ones.
 */
final class UpsertRounds {

    static final String TOPIC = "accounts";
    private static final String SCHEMA = """
            {"type": "object", "properties": {"balance": {"type": "integer"}}, "required": ["balance"]}""";
    private static final int MAX_POLLS = 200;

    /** A change of one key: a new balance, or a tombstone when {@code balance} is null. */
    record Change(String key, Long balance) {}

    final ManualClock clock = new ManualClock();
    private final TableflowHarness floe;
    private final Path spool;
    private final Topic topic;
    private final Map<String, Long> expected = new TreeMap<>();
    private TableJobs jobs;
    private SimpleMeterRegistry meters;
    private int agents;

    /** The topic, with {@code configs} over the upsert table's (JSON balances, a commit each round). */
    UpsertRounds(TableflowHarness floe, Path spool, int partitions, Map<String, String> configs) {
        this.floe = floe;
        this.spool = spool;
        Map<String, String> all = new HashMap<>(Map.of(
                "floe.tableflow.enabled", "true",
                "floe.tableflow.mode", "upsert",
                "floe.tableflow.format", "json",
                "floe.tableflow.schema", SCHEMA,
                "floe.tableflow.commit.interval.ms", "1"));
        all.putAll(configs);
        topic = floe.agent.topics().create(new NewTopic(TOPIC, partitions, all), false);
        restart();
    }

    /**
     * Another agent's jobs take the table over once the old lease ran out: nothing the old jobs held in
     * memory is left. Their meters are new too.
     */
    void restart() {
        clock.step(Duration.ofMinutes(1));
        meters = new SimpleMeterRegistry();
        jobs = new TableJobs(
                TableflowConfig.defaults(spool),
                "agent-" + ++agents,
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                meters);
    }

    /** Appends {@code changes} to {@code partition} as one batch. */
    void produce(int partition, List<Change> changes) {
        SimpleRecord[] records = new SimpleRecord[changes.size()];
        for (int i = 0; i < records.length; i++) {
            Change change = changes.get(i);
            byte[] value = change.balance() == null
                    ? null
                    : ("{\"balance\": " + change.balance() + "}").getBytes(StandardCharsets.UTF_8);
            records[i] = new SimpleRecord(clock.millis(), change.key().getBytes(StandardCharsets.UTF_8), value);
            if (change.balance() == null) {
                expected.remove(change.key());
            } else {
                expected.put(change.key(), change.balance());
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

    void poll() {
        TablePolls.poll(clock, jobs);
    }

    /** Polls until the table holds every committed record (maintenance runs after each round). */
    void pollUntilCaughtUp() {
        TablePolls.untilCaughtUp(floe, TOPIC, clock, jobs, MAX_POLLS);
    }

    Table table() {
        return floe.tables.load(TOPIC).orElseThrow();
    }

    /** The table holds one row for every live key, with its newest balance, and no other row. */
    void assertNewestRowOfEveryKey() {
        assertThat(balancesByKey(TableflowHarness.rows(table()))).isEqualTo(expected);
    }

    /** The balance of each record key of {@code rows}, failing on a key's second row. */
    static Map<String, Long> balancesByKey(List<Record> rows) {
        Map<String, Long> balances = new TreeMap<>();
        for (Record row : rows) {
            String key = StandardCharsets.UTF_8
                    .decode(((ByteBuffer) row.getField(Rows.KEY)).duplicate())
                    .toString();
            assertThat(balances.put(key, (Long) row.getField("balance")))
                    .as("a second row of key %s", key)
                    .isNull();
        }
        return balances;
    }

    int liveKeys() {
        return expected.size();
    }

    /** The value of the table's meter {@code name} (a counter's count, a gauge's value) in the current jobs. */
    double meter(String name) {
        Meter meter = meters.find(name).tag("topic", TOPIC).meter();
        assertThat(meter).as("meter %s", name).isNotNull();
        double value = 0;
        for (Measurement measurement : meter.measure()) {
            value += measurement.getValue();
        }
        return value;
    }
}
