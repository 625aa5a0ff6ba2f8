package io.floe.maintenance.retention;

import io.floe.core.config.TopicConfigs;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.LogRetention;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.maintenance.Job;
import io.floe.maintenance.MaintenanceConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One retention round over every partition: the new log start is the first batch that must stay by
 * time ({@code retention.ms}: its max timestamp is within the window) and by size
 * ({@code retention.bytes}: what lies from it to the end fits), and never below the current one.
 * As in Kafka, retention works from the head of the log and stops at the first batch that must stay,
 * so a late batch with an old timestamp behind a newer one stays too. A retention hold (Tableflow's
 * table watermark) caps the new log start: a record a table has not read yet stays. The store
 * enforces the hold inside the truncation; this job only counts the partitions it held back.
 */
public final class Retention implements Job {

    private static final Logger LOGGER = LoggerFactory.getLogger(Retention.class);

    public static final String NAME = "retention";
    private static final int PAGE_BATCHES = 1000;

    private final MaintenanceConfig config;
    private final TopicMetadata topics;
    private final LogReads metadata;
    private final LogRetention retention;
    private final TopicConfigs topicConfigs;
    private final Counter recordsRemoved;
    private final Counter holds;
    private final Counter failures;
    private int heldBack;

    public Retention(
            MaintenanceConfig config,
            TopicMetadata topics,
            LogReads metadata,
            LogRetention retention,
            TopicConfigs topicConfigs,
            MeterRegistry meters) {
        this.config = config;
        this.topics = topics;
        this.metadata = metadata;
        this.retention = retention;
        this.topicConfigs = topicConfigs;
        this.recordsRemoved = Counter.builder("floe.retention.records.removed")
                .description("Records below a log start that retention or DeleteRecords moved")
                .register(meters);
        this.holds = Counter.builder("floe.retention.held.back")
                .description("Partitions where a retention hold (a table that has not read them yet) kept records"
                        + " retention would have removed")
                .register(meters);
        this.failures = Counter.builder("floe.retention.failures")
                .description("Partitions whose retention failed in a round (logged; the round goes on)")
                .register(meters);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String run(Instant now) {
        long removed = 0;
        int moved = 0;
        heldBack = 0;
        int failed = 0;
        for (Topic topic : topics.topics()) {
            Map<Integer, Long> sizes = null;
            for (int partition = 0; partition < topic.partitionCount(); partition++) {
                TopicPartition tp = new TopicPartition(topic.name(), partition);
                try {
                    if (sizes == null) {
                        sizes = retentionBytes(topic) >= 0 ? metadata.partitionSizes(topic.name()) : Map.of();
                    }
                    LogOffsets before = metadata.offsets(tp);
                    long logBytes = sizes.getOrDefault(partition, 0L);
                    long target = Math.max(before.logStartOffset(), retainFrom(topic, tp, before, logBytes, now));
                    // Also at the current log start: it removes the rows DeleteRecords left below it. The store
                    // caps the truncation at the lowest retention hold, read under the partition's lock: a
                    // hold read here first could be older than one a table writes meanwhile.
                    long after = retention.truncateLog(tp, target, now.plus(config.objectDeleteDelay()));
                    if (after < target) {
                        heldBack++;
                    }
                    if (after > before.logStartOffset()) {
                        moved++;
                        removed += after - before.logStartOffset();
                    }
                } catch (UnknownTopicException deletedMeanwhile) {
                    break;
                } catch (RuntimeException e) {
                    // One partition the store cannot truncate (a constraint it breaks, a failure) must not
                    // stop retention of every partition and topic after it, round after round.
                    failed++;
                    failures.increment();
                    LOGGER.warn("retention failed topic={} partition={}: {}", topic.name(), partition, e.toString(), e);
                }
            }
        }
        recordsRemoved.increment(removed);
        holds.increment(heldBack);
        return moved == 0 && heldBack == 0 && failed == 0
                ? ""
                : "partitions=" + moved + " recordsRemoved=" + removed + " heldBack=" + heldBack + " failed=" + failed;
    }

    /** The lowest offset retention keeps in {@code tp}, or the current log start when it keeps everything. */
    private long retainFrom(Topic topic, TopicPartition tp, LogOffsets offsets, long logBytes, Instant now) {
        if (!topicConfigs.cleanupPolicy(topic).contains("delete")) {
            return offsets.logStartOffset();
        }
        long from = offsets.logStartOffset();
        long retentionMs = Long.parseLong(topicConfigs.value(topic, TopicConfigs.RETENTION_MS));
        if (retentionMs >= 0) {
            Optional<BatchCoordinate> firstKept = metadata.firstBatchAtOrAfter(tp, now.toEpochMilli() - retentionMs);
            from = Math.max(from, firstKept.map(BatchCoordinate::baseOffset).orElse(offsets.highWatermark()));
        }
        long retentionBytes = retentionBytes(topic);
        if (retentionBytes >= 0) {
            from = Math.max(from, firstFitting(tp, offsets, logBytes, retentionBytes));
        }
        return from;
    }

    private long retentionBytes(Topic topic) {
        return Long.parseLong(topicConfigs.value(topic, TopicConfigs.RETENTION_BYTES));
    }

    /**
     * The first batch offset from which the rest of the log is at most {@code bytesMax}, given that the
     * log occupies {@code logBytes}.
     */
    private long firstFitting(TopicPartition tp, LogOffsets offsets, long logBytes, long bytesMax) {
        long excess = logBytes - bytesMax;
        long offset = offsets.logStartOffset();
        while (excess > 0) {
            List<BatchCoordinate> page = metadata.batches(tp, offset, PAGE_BATCHES);
            if (page.isEmpty()) {
                return offsets.highWatermark();
            }
            for (BatchCoordinate batch : page) {
                if (excess <= 0) {
                    return batch.baseOffset();
                }
                excess -= batch.range().length();
                offset = batch.nextOffset();
            }
        }
        return offset;
    }
}
