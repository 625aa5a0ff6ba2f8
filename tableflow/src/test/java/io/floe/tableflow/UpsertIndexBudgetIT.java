package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.tableflow.config.TableflowConfigs;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many upsert tables on one agent under a key index budget that holds only some of their indexes: the
 * indexes together never take more than the budget, the small tables keep theirs, the others look their
 * keys up (a table that arrives later and fits its fair share takes memory back from one beyond its
 * own), and every table holds exactly the newest row of each key.
 */
@Timeout(180)
class UpsertIndexBudgetIT {

    /** Keys of 8 bytes: an index takes 144 + 8 bytes a key. */
    private static final long KEY_INDEX_BYTES = 152;

    private static final long BUDGET = 12 << 10;
    private static final String SCHEMA = """
            {"type": "object", "properties": {"balance": {"type": "integer"}}, "required": ["balance"]}""";

    @TempDir
    Path dataDir;

    private final ManualClock clock = new ManualClock();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    /** The newest balance of every live key, per topic. */
    private final Map<String, Map<String, Long>> expected = new TreeMap<>();

    @Test
    void theIndexesOfManyTablesStayWithinTheBudgetAndEveryTableHoldsItsNewestRows() throws Exception {
        try (TableflowHarness floe = new TableflowHarness(dataDir)) {
            TableJobs jobs = new TableJobs(
                    TableflowConfig.defaults(dataDir.resolve("spool")).withUpsertIndexBytes(BUDGET),
                    "agent-1",
                    TableflowMetadata.of(floe.metadata),
                    new CommittedLog(floe.metadata, floe.objects),
                    floe.tables,
                    clock,
                    meters);
            // About 3, 7.4, 12 and 24 KiB of index: a fair share of the 12 KiB is 3 KiB.
            Map<String, Integer> sizes = new LinkedHashMap<>();
            sizes.put("t0", 20);
            sizes.put("t1", 50);
            sizes.put("t2", 80);
            sizes.put("t3", 160);
            sizes.forEach((name, keys) -> produceRound(floe, topic(floe, name), keys, 0));
            pollWithinBudget(floe, jobs);
            assertThat(indexKeys("t0")).as("t0 fits what is free").isEqualTo(20);
            assertThat(indexKeys("t1")).as("t1 fits what is left").isEqualTo(50);
            assertThat(indexKeys("t2")).as("t2 does not: it looks up").isZero();
            assertThat(indexKeys("t3")).isZero();

            // Updates of each table's keys, a round each.
            sizes.forEach((name, keys) ->
                    produceRound(floe, floe.agent.topics().find(name).orElseThrow(), keys, 1));
            pollWithinBudget(floe, jobs);
            assertThat(lookups("t2") + lookups("t3"))
                    .as("rounds that looked their keys up")
                    .isPositive();

            // A small table arrives: 1.8 KiB, more than is free but within its fair share (2.4 KiB of 12), it
            // takes the memory of the largest index beyond its share, t1's.
            produceRound(floe, topic(floe, "t4"), 12, 0);
            pollWithinBudget(floe, jobs);
            assertThat(indexKeys("t4")).isEqualTo(12);
            assertThat(indexKeys("t1")).as("evicted").isZero();
            assertThat(meters.find("floe.tableflow.upsert.index.evictions")
                            .counter()
                            .count())
                    .isEqualTo(1);

            sizes.put("t4", 12);
            sizes.forEach((name, keys) ->
                    produceRound(floe, floe.agent.topics().find(name).orElseThrow(), keys, 2));
            pollWithinBudget(floe, jobs);
            for (String name : sizes.keySet()) {
                assertThat(UpsertRounds.balancesByKey(
                                TableflowHarness.rows(floe.tables.load(name).orElseThrow())))
                        .as("the rows of %s", name)
                        .isEqualTo(expected.get(name));
            }
        }
    }

    /** Polls until every table caught up, checking the indexes' memory after every poll (and one more). */
    private void pollWithinBudget(TableflowHarness floe, TableJobs jobs) {
        for (int polls = 0; polls < 2 || !caughtUp(floe); polls++) {
            assertThat(polls).as("polls until every table caught up").isLessThan(10);
            clock.step(Duration.ofSeconds(1));
            jobs.poll();
            assertThat(jobs.keyIndexes().held()).as("bytes the indexes hold").isLessThanOrEqualTo(BUDGET);
            double keys = meters.find("floe.tableflow.upsert.index.keys").gauges().stream()
                    .mapToDouble(Gauge::value)
                    .sum();
            assertThat(keys * KEY_INDEX_BYTES)
                    .as("the keys the indexes hold, at %s bytes a key", KEY_INDEX_BYTES)
                    .isLessThanOrEqualTo(BUDGET);
            assertThat(meters.find("floe.tableflow.upsert.index.bytes").gauge().value())
                    .isEqualTo(jobs.keyIndexes().held());
        }
    }

    private boolean caughtUp(TableflowHarness floe) {
        return expected.keySet().stream()
                .allMatch(name -> floe.tables
                        .load(name)
                        .filter(table -> TableflowHarness.reaches(table, floe.stableEnds(name)))
                        .isPresent());
    }

    private Topic topic(TableflowHarness floe, String name) {
        expected.put(name, new TreeMap<>());
        return floe.agent
                .topics()
                .create(
                        new NewTopic(
                                name,
                                1,
                                Map.of(
                                        TableflowConfigs.ENABLED, "true",
                                        TableflowConfigs.MODE, "upsert",
                                        TableflowConfigs.FORMAT, "json",
                                        TableflowConfigs.SCHEMA, SCHEMA,
                                        TableflowConfigs.COMMIT_INTERVAL_MS, "1")),
                        false);
    }

    /** Round 0 writes every key; a later round updates every third key, and round 2 deletes every fifth. */
    private void produceRound(TableflowHarness floe, Topic topic, int keys, int round) {
        Map<String, Long> rows = expected.get(topic.name());
        SimpleRecord[] records = new SimpleRecord[keys];
        for (int i = 0; i < keys; i++) {
            String key = String.format("k-%06d", i);
            Long balance = round == 0 || i % 3 == round % 3 ? (long) (round * 1000 + i) : rows.get(key);
            if (round == 2 && i % 5 == 2) {
                balance = null;
            }
            byte[] value = balance == null ? null : ("{\"balance\": " + balance + "}").getBytes(StandardCharsets.UTF_8);
            records[i] = new SimpleRecord(clock.millis(), key.getBytes(StandardCharsets.UTF_8), value);
            if (balance == null) {
                rows.remove(key);
            } else {
                rows.put(key, balance);
            }
        }
        floe.agent
                .produce()
                .append(
                        topic,
                        0,
                        MemoryRecords.withRecords(Compression.NONE, records).buffer())
                .join();
    }

    private double indexKeys(String topic) {
        return meters.find("floe.tableflow.upsert.index.keys")
                .tag("topic", topic)
                .gauge()
                .value();
    }

    private double lookups(String topic) {
        return meters.find("floe.tableflow.upsert.lookups")
                .tag("topic", topic)
                .counter()
                .count();
    }
}
