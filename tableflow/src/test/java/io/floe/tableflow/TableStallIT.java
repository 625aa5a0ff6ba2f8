package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.retention.Retention;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableCatalog;
import io.floe.tableflow.table.TableJobs;
import io.floe.tableflow.table.Watermark;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table that cannot advance (here: its declared schema changed a field's type behind the AlterConfigs
 * check's back, so every round fails to widen the table) holds retention back only for the stall
 * timeout; then it is reported stalled (log, {@code floe.tableflow.stalled}, the table property that
 * {@code floe tables describe} shows), retention proceeds, and when the table advances again it counts
 * the records retention removed before it read them.
 */
@Timeout(120)
class TableStallIT {

    private static final String TOPIC = "stalls";
    private static final Duration STALL_TIMEOUT = Duration.ofMinutes(10);
    private static final String INTEGER_N = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}";
    private static final String STRING_N = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\"}}}";

    @TempDir
    Path dataDir;

    private final ManualClock clock = new ManualClock();
    private TableflowHarness floe;
    private MeterRegistry meters;
    private TableJobs jobs;
    private Retention retention;
    private Topic topic;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir);
        meters = floe.meters;
        jobs = new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool")).withStallTimeout(STALL_TIMEOUT),
                "agent-1",
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                floe.meters);
        retention = new Retention(
                MaintenanceConfig.DEFAULTS,
                floe.metadata,
                floe.metadata,
                floe.metadata,
                floe.agent.topics().configs(),
                floe.meters);
        topic = floe.agent.topics().create(new NewTopic(TOPIC, 1, configs(INTEGER_N)), false);
    }

    @AfterEach
    void stop() throws Exception {
        floe.close();
    }

    /** {@code resumedByAnotherAgent}: the table advances again on an agent that never saw it stall. */
    @ParameterizedTest(name = "resumed by another agent: {0}")
    @ValueSource(booleans = {false, true})
    void aTableThatCannotAdvanceIsReportedAndStopsHoldingRetentionAfterTheStallTimeout(boolean resumedByAnotherAgent) {
        long old = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
        produce(0, 10, old);
        pollUntilMaterialized(10);
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        floe.agent.topics().setConfigs(TOPIC, configs(STRING_N));
        produce(10, 10, old);
        poll();
        assertThat(failures()).isEqualTo(1);
        retention.run(Instant.now());
        assertThat(floe.metadata.offsets(tp).logStartOffset())
                .as("held while the table may still recover")
                .isEqualTo(10);
        assertThat(stalled()).isZero();

        clock.step(STALL_TIMEOUT);
        poll();
        assertThat(stalled()).isEqualTo(1);
        assertThat(floe.metadata.retentionHolds(TOPIC))
                .as("a stalled table holds nothing back")
                .isEmpty();
        assertThat(floe.tables.load(TOPIC).orElseThrow().properties().get(TableCatalog.STALLED_PROPERTY))
                .contains("rounds failed")
                .contains("n: long -> string");
        retention.run(Instant.now());
        assertThat(floe.metadata.offsets(tp).logStartOffset()).isEqualTo(20);
        poll();
        assertThat(floe.metadata.retentionHolds(TOPIC))
                .as("still stalled, still nothing held")
                .isEmpty();

        floe.agent.topics().setConfigs(TOPIC, configs(INTEGER_N));
        produce(20, 5, System.currentTimeMillis());
        if (resumedByAnotherAgent) {
            meters = new SimpleMeterRegistry();
            jobs = new TableJobs(
                    TableflowConfig.defaults(dataDir.resolve("spool2")).withStallTimeout(STALL_TIMEOUT),
                    "agent-2",
                    TableflowMetadata.of(floe.metadata),
                    new CommittedLog(floe.metadata, floe.objects),
                    floe.tables,
                    clock,
                    meters);
            clock.step(TableflowConfig.DEFAULT_LEASE_TTL); // agent-1's lease runs out
        }
        pollUntilMaterialized(25);
        assertThat(stalled()).isZero();
        assertThat(floe.tables.load(TOPIC).orElseThrow().properties()).doesNotContainKey(TableCatalog.STALLED_PROPERTY);
        assertThat(meters.find("floe.tableflow.skipped.records")
                        .tag("topic", TOPIC)
                        .counter()
                        .count())
                .as("what the table missed")
                .isEqualTo(10);
        assertThat(TableflowHarness.rows(floe.tables.load(TOPIC).orElseThrow()))
                .extracting(row -> (Long) row.getField("n"))
                .containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 20L, 21L, 22L, 23L, 24L);
        assertThat(floe.metadata.retentionHolds(TOPIC)).as("held again").isEqualTo(Map.of(0, 25L));
    }

    /**
     * An agent whose table stalled, and which takes the table back after another agent advanced it,
     * must not give up the other agent's retention hold at its first failed round (its old run of
     * failures says nothing about the table any more).
     */
    @Test
    void anAgentThatTakesAStalledTableBackAfterAnotherAdvancedItStartsItsStallWatchAgain() {
        long old = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
        produce(0, 10, old);
        pollUntilMaterialized(10);
        floe.agent.topics().setConfigs(TOPIC, configs(STRING_N));
        poll();
        clock.step(STALL_TIMEOUT);
        poll();
        assertThat(stalled()).isEqualTo(1);
        assertThat(floe.metadata.retentionHolds(TOPIC)).isEmpty();

        TableJobs first = jobs;
        floe.agent.topics().setConfigs(TOPIC, configs(INTEGER_N));
        produce(10, 5, System.currentTimeMillis());
        jobs = new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool2")).withStallTimeout(STALL_TIMEOUT),
                "agent-2",
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                clock,
                new SimpleMeterRegistry());
        clock.step(TableflowConfig.DEFAULT_LEASE_TTL); // agent-1's lease runs out
        pollUntilMaterialized(15);
        assertThat(floe.metadata.retentionHolds(TOPIC)).isEqualTo(Map.of(0, 15L));

        clock.step(TableflowConfig.DEFAULT_LEASE_TTL); // agent-2's lease runs out; agent-1 takes the table back
        floe.agent.topics().setConfigs(TOPIC, configs(STRING_N));
        produce(15, 5, System.currentTimeMillis());
        jobs = first;
        poll();

        assertThat(failures()).isEqualTo(3);
        assertThat(stalled()).isZero();
        assertThat(floe.metadata.retentionHolds(TOPIC))
                .as("one failed round is no stall")
                .isEqualTo(Map.of(0, 15L));
    }

    private static Map<String, String> configs(String schema) {
        return Map.of(
                "retention.ms",
                "3600000",
                "floe.tableflow.enabled",
                "true",
                "floe.tableflow.format",
                "json",
                "floe.tableflow.schema",
                schema,
                "floe.tableflow.commit.interval.ms",
                "1");
    }

    private double stalled() {
        return meters.find("floe.tableflow.stalled").tag("topic", TOPIC).gauge().value();
    }

    private double failures() {
        return meters.find("floe.tableflow.failures")
                .tag("topic", TOPIC)
                .counter()
                .count();
    }

    private void poll() {
        clock.step(Duration.ofSeconds(1));
        jobs.poll();
    }

    private void pollUntilMaterialized(long offset) {
        for (int polls = 0; polls < 100; polls++) {
            if (floe.tables
                            .load(TOPIC)
                            .flatMap(Watermark::of)
                            .map(mark -> mark.next(0))
                            .orElse(-1L)
                    >= offset) {
                return;
            }
            poll();
        }
        throw new AssertionError("the table did not reach offset " + offset + ": "
                + floe.tables.load(TOPIC).flatMap(Watermark::of));
    }

    private void produce(int first, int count, long timestamp) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(
                    timestamp, null, ("{\"n\": " + (first + i) + "}").getBytes(StandardCharsets.UTF_8));
        }
        ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE, records).buffer();
        floe.agent.produce().append(topic, 0, batch).join();
    }
}
