package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.retention.Retention;
import io.floe.tableflow.source.CommittedLog;
import io.floe.tableflow.table.TableJobs;
import io.floe.tableflow.table.Watermark;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention never removes a record the topic's table has not read: the table job holds each partition
 * at its watermark, retention stops there, and the hold goes when the table is turned off.
 */
@Timeout(120)
class RetentionHoldIT {

    private static final String TOPIC = "held";

    @TempDir
    Path dataDir;

    private TableflowHarness floe;
    private TableJobs jobs;
    private Retention retention;

    @BeforeEach
    void start() {
        floe = new TableflowHarness(dataDir);
        // Driven by hand, one poll at a time: the test decides when the table reads.
        jobs = new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool")),
                "agent-1",
                TableflowMetadata.of(floe.metadata),
                new CommittedLog(floe.metadata, floe.objects),
                floe.tables,
                Clock.systemUTC(),
                floe.meters);
        retention = new Retention(
                MaintenanceConfig.DEFAULTS,
                floe.metadata,
                floe.metadata,
                floe.metadata,
                floe.agent.topics().configs(),
                floe.meters);
    }

    @AfterEach
    void stop() throws Exception {
        floe.close();
    }

    @Test
    void retentionStopsAtTheTablesWatermarkAndResumesWhenTheTableIsOff() throws Exception {
        Topic topic = floe.agent
                .topics()
                .create(
                        new NewTopic(
                                TOPIC,
                                1,
                                Map.of(
                                        "retention.ms",
                                        "3600000",
                                        "floe.tableflow.enabled",
                                        "true",
                                        "floe.tableflow.commit.interval.ms",
                                        "1")),
                        false);
        long old = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
        produce(topic, 0, 50, old);
        pollUntilMaterialized(50);
        assertThat(floe.metadata.retentionHolds(TOPIC)).isEqualTo(Map.of(0, 50L));

        produce(topic, 50, 50, old);
        retention.run(Instant.now());
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        assertThat(floe.metadata.offsets(tp).logStartOffset())
                .as("held at the table's watermark")
                .isEqualTo(50);

        pollUntilMaterialized(100);
        retention.run(Instant.now());
        assertThat(floe.metadata.offsets(tp).logStartOffset()).isEqualTo(100);
        assertThat(TableflowHarness.rows(floe.tables.load(TOPIC).orElseThrow())).hasSize(100);

        produce(topic, 100, 10, old);
        floe.agent.topics().setConfigs(TOPIC, Map.of("retention.ms", "3600000", "floe.tableflow.enabled", "false"));
        jobs.poll();
        assertThat(floe.metadata.retentionHolds(TOPIC)).isEmpty();
        retention.run(Instant.now());
        assertThat(floe.metadata.offsets(tp).logStartOffset())
                .as("no hold once the table is off")
                .isEqualTo(110);
    }

    /**
     * DeleteRecords (which ignores holds) moves the log start after the table read it and before it
     * reads the batches: the table cannot have those records, and it must say so (a count and a log
     * line), not start silently from the new log start.
     */
    @Test
    void recordsRemovedBelowTheLogStartBeforeTheTableReadThemAreCounted() throws Exception {
        Topic topic = floe.agent
                .topics()
                .create(
                        new NewTopic(
                                TOPIC,
                                1,
                                Map.of("floe.tableflow.enabled", "true", "floe.tableflow.commit.interval.ms", "1")),
                        false);
        for (int batch = 0; batch < 5; batch++) {
            produce(topic, batch * 10, 10, System.currentTimeMillis());
        }
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        AtomicBoolean removed = new AtomicBoolean();
        MetadataStore racing = new ForwardingMetadataStore(floe.metadata) {
            @Override
            public List<BatchCoordinate> batches(TopicPartition topicPartition, long fromOffset, int maxBatches) {
                if (tp.equals(topicPartition) && removed.compareAndSet(false, true)) {
                    floe.metadata.deleteRecords(tp, 30);
                }
                return super.batches(topicPartition, fromOffset, maxBatches);
            }
        };
        jobs = new TableJobs(
                TableflowConfig.defaults(dataDir.resolve("spool-racing")),
                "agent-1",
                TableflowMetadata.of(racing),
                new CommittedLog(racing, floe.objects),
                floe.tables,
                Clock.systemUTC(),
                floe.meters);

        pollUntilMaterialized(50);

        assertThat(removed).isTrue();
        assertThat(TableflowHarness.rows(floe.tables.load(TOPIC).orElseThrow())).hasSize(20);
        assertThat(floe.meters
                        .get("floe.tableflow.skipped.records")
                        .tag("topic", TOPIC)
                        .counter()
                        .count())
                .as("offsets removed before the table read them")
                .isEqualTo(30);
    }

    private void pollUntilMaterialized(long offset) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(60);
        while (floe.tables
                        .load(TOPIC)
                        .flatMap(Watermark::of)
                        .map(mark -> mark.next(0))
                        .orElse(-1L)
                < offset) {
            assertThat(Instant.now()).as("table reached offset %d", offset).isBefore(deadline);
            jobs.poll();
            Thread.sleep(2);
        }
    }

    private void produce(Topic topic, int first, int count, long timestamp) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(timestamp, null, ("v" + (first + i)).getBytes(StandardCharsets.UTF_8));
        }
        ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE, records).buffer();
        floe.agent.produce().append(topic, 0, batch).join();
    }
}
