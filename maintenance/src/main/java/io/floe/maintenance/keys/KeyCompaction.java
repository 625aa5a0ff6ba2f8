package io.floe.maintenance.keys;

import io.floe.core.config.TopicConfigs;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.LogReads;
import io.floe.core.metadata.TopicMetadata;
import io.floe.core.object.ObjectKeys;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.maintenance.Job;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.MaintenanceMetadata;
import io.floe.maintenance.keys.DirtyScan.DirtySection;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One key compaction round over the partitions of topics whose {@code cleanup.policy} includes
 * {@code compact} (DESIGN §5). For each it scans the dirty section, the batches from its clean offset
 * on, up to the first that must wait ({@link DirtyScan}), and decides whether a pass is due: the dirty
 * bytes are at least {@code min.cleanable.dirty.ratio} of the log's, or the oldest dirty record is older
 * than {@code max.compaction.lag.ms}, or a kept tombstone's delete horizon has passed. Due partitions
 * are cleaned dirtiest first, until the round has read the run budget (at least one partition), each by
 * a {@link PartitionPass}.
 *
 * <p>Clean offsets live in this job's memory, by topic id, so a new holder of the lease (or this agent
 * after a restart) starts each partition's first pass at its log start, as Kafka does without its
 * cleaner checkpoint file: more reading, never a wrong result (see {@link Checkpoint}).
 */
public final class KeyCompaction implements Job {

    public static final String NAME = "key-compaction";
    static final String DELETE_RETENTION_MS = "delete.retention.ms";
    static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
    static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    private static final Logger LOGGER = LoggerFactory.getLogger(KeyCompaction.class);
    private static final int PAGE_ROWS = 1000;
    /** Batches one pass maps at most (their coordinates are held in memory). */
    private static final int DIRTY_ROWS_MAX = 100_000;

    /** A partition by topic id: a topic deleted and created again under its name starts afresh. */
    private record PartitionId(UUID topicId, int partition) {}

    /** A partition due for a pass, with what its scan found. */
    private record Candidate(Topic topic, int partition, LogOffsets offsets, DirtySection dirty, double dirtyRatio) {}

    private final MaintenanceConfig config;
    private final TopicMetadata topics;
    private final LogReads metadata;
    private final TopicConfigs topicConfigs;
    private final KeyCompactionMeters meters;
    private final PartitionPass.Context context;
    private final Map<PartitionId, Checkpoint> checkpoints = new HashMap<>();
    private KeyOffsetMap map;

    public KeyCompaction(
            MaintenanceConfig config,
            MaintenanceMetadata metadata,
            ObjectStore objects,
            TopicConfigs topicConfigs,
            String owner,
            Clock clock,
            MeterRegistry meters) {
        this.config = config;
        this.topics = metadata.topics();
        this.metadata = metadata.reads();
        this.topicConfigs = topicConfigs;
        this.meters = new KeyCompactionMeters(meters);
        this.context = new PartitionPass.Context(
                metadata.reads(),
                metadata.appends(),
                metadata.objects(),
                objects,
                new ObjectKeys(clock, owner + "-keys"),
                owner,
                clock,
                config.compactionTargetBytes(),
                config.objectDeleteDelay(),
                this.meters);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized String run(Instant now) {
        Map<PartitionId, Long> lags = new HashMap<>();
        List<Candidate> due = scan(now, lags);
        due.sort(Comparator.comparingDouble(Candidate::dirtyRatio).reversed());
        long budget = config.compactionRunBytesMax();
        long read = 0;
        int attempted = 0;
        int cleaned = 0;
        long removed = 0;
        for (Candidate candidate : due) {
            if (attempted > 0 && read >= budget) {
                break;
            }
            attempted++;
            PartitionPass pass = new PartitionPass(
                    candidate.topic(),
                    candidate.partition(),
                    context,
                    map(),
                    now,
                    longConfig(candidate.topic(), DELETE_RETENTION_MS));
            PartitionPass.Result result = clean(pass, candidate);
            read += pass.bytesRead();
            if (result != null && result.complete()) {
                cleaned++;
                removed += result.recordsRemoved();
                lags.put(
                        id(candidate.topic(), candidate.partition()),
                        lagAfter(candidate, checkpoints.get(id(candidate.topic(), candidate.partition())), now));
            }
        }
        meters.lagMs.set(lags.values().stream().mapToLong(Long::longValue).max().orElse(0));
        return due.isEmpty() ? "" : "due=" + due.size() + " cleaned=" + cleaned + " recordsRemoved=" + removed;
    }

    /** Scans every compacted partition; returns those due for a pass and fills {@code lags}. */
    private List<Candidate> scan(Instant now, Map<PartitionId, Long> lags) {
        List<Candidate> due = new ArrayList<>();
        Set<PartitionId> seen = new HashSet<>();
        for (Topic topic : topics.topics()) {
            if (!topicConfigs.compacted(topic)) {
                continue;
            }
            try {
                Map<Integer, Long> sizes = metadata.partitionSizes(topic.name());
                for (int partition = 0; partition < topic.partitionCount(); partition++) {
                    PartitionId id = id(topic, partition);
                    seen.add(id);
                    try {
                        Candidate candidate = assess(topic, partition, sizes.getOrDefault(partition, 0L), now);
                        candidate
                                .dirty()
                                .oldestTimestamp()
                                .ifPresent(oldest -> lags.put(id, Math.max(0, now.toEpochMilli() - oldest)));
                        if (isDue(candidate, checkpoint(id), now)) {
                            due.add(candidate);
                        }
                    } catch (UnknownTopicException deletedMeanwhile) {
                        throw deletedMeanwhile;
                    } catch (RuntimeException e) {
                        // One partition that cannot be scanned (a bad config value, a failed read) must
                        // not keep every other compacted partition from its pass.
                        meters.failures.increment();
                        LOGGER.warn(
                                "key compaction scan failed topic={} partition={}: {}",
                                topic.name(),
                                partition,
                                e.toString(),
                                e);
                    }
                }
            } catch (UnknownTopicException deletedMeanwhile) {
                LOGGER.debug("topic deleted during the key compaction scan topic={}", topic.name());
            } catch (RuntimeException e) {
                meters.failures.increment();
                LOGGER.warn("key compaction scan failed topic={}: {}", topic.name(), e.toString(), e);
            }
        }
        checkpoints.keySet().retainAll(seen);
        return due;
    }

    private Candidate assess(Topic topic, int partition, long logBytes, Instant now) {
        TopicPartition tp = new TopicPartition(topic.name(), partition);
        LogOffsets offsets = metadata.offsets(tp);
        long start = Math.max(checkpoint(id(topic, partition)).cleanOffset(), offsets.logStartOffset());
        long minLagMs = longConfig(topic, MIN_COMPACTION_LAG_MS);
        DirtyScan scan = new DirtyScan(
                offsets.lastStableOffset(),
                now.toEpochMilli() - Math.max(0, minLagMs),
                now.minus(config.compactionMinAge()),
                KeyOffsetMap.capacityFor(config.keyCompactionBufferBytes()),
                DIRTY_ROWS_MAX);
        long next = start;
        List<BatchCoordinate> page;
        scanning:
        while (!(page = metadata.batches(tp, next, PAGE_ROWS)).isEmpty()) {
            for (BatchCoordinate row : page) {
                if (!scan.offer(row)) {
                    break scanning;
                }
                next = row.nextOffset();
            }
        }
        DirtySection dirty = scan.result(start);
        double ratio = logBytes == 0 ? 0 : (double) dirty.bytes() / logBytes;
        return new Candidate(topic, partition, offsets, dirty, ratio);
    }

    private boolean isDue(Candidate candidate, Checkpoint checkpoint, Instant now) {
        if (now.toEpochMilli() >= checkpoint.tombstoneHorizonMs()) {
            return true;
        }
        DirtySection dirty = candidate.dirty();
        if (dirty.cleanable().isEmpty()) {
            return false;
        }
        double minRatio = Double.parseDouble(
                topicConfigs.value(candidate.topic(), MIN_CLEANABLE_DIRTY_RATIO).trim());
        long maxLagMs = longConfig(candidate.topic(), MAX_COMPACTION_LAG_MS);
        long oldest = dirty.cleanable().get(0).maxTimestamp();
        return candidate.dirtyRatio() >= minRatio || now.toEpochMilli() - oldest > maxLagMs;
    }

    /** The key map, allocated on first use and kept: every pass clears it. */
    private KeyOffsetMap map() {
        if (map == null) {
            map = new KeyOffsetMap(config.keyCompactionBufferBytes());
        }
        return map;
    }

    /** Runs one pass; records the new checkpoint when it completed. Null when it failed. */
    private PartitionPass.Result clean(PartitionPass pass, Candidate candidate) {
        Topic topic = candidate.topic();
        PartitionId id = id(topic, candidate.partition());
        try {
            PartitionPass.Result result = pass.run(candidate.offsets().logStartOffset(), candidate.dirty());
            if (result.complete()) {
                long cleanOffset =
                        Math.max(checkpoint(id).cleanOffset(), candidate.dirty().end());
                checkpoints.put(id, new Checkpoint(cleanOffset, result.tombstoneHorizonMs()));
                meters.passes.increment();
            }
            LOGGER.debug(
                    "key compaction pass topic={} partition={} complete={} end={} swaps={} recordsRemoved={}",
                    topic.name(),
                    candidate.partition(),
                    result.complete(),
                    candidate.dirty().end(),
                    result.swaps(),
                    result.recordsRemoved());
            return result;
        } catch (ObjectNotFoundException | UnknownTopicException moved) {
            LOGGER.info(
                    "key compaction pass given up, batches moved or topic deleted meanwhile topic={}"
                            + " partition={}: {}",
                    topic.name(),
                    candidate.partition(),
                    moved.getMessage());
        } catch (RuntimeException e) {
            meters.failures.increment();
            LOGGER.warn(
                    "key compaction pass failed topic={} partition={}: {}",
                    topic.name(),
                    candidate.partition(),
                    e.toString(),
                    e);
        }
        return null;
    }

    /** The age of the oldest record above the partition's new clean offset, 0 when there is none. */
    private long lagAfter(Candidate candidate, Checkpoint checkpoint, Instant now) {
        TopicPartition tp = new TopicPartition(candidate.topic().name(), candidate.partition());
        List<BatchCoordinate> first = metadata.batches(tp, checkpoint.cleanOffset(), 1);
        return first.isEmpty()
                ? 0
                : Math.max(0, now.toEpochMilli() - first.get(0).maxTimestamp());
    }

    private Checkpoint checkpoint(PartitionId id) {
        return checkpoints.getOrDefault(id, Checkpoint.NONE);
    }

    private long longConfig(Topic topic, String name) {
        return Long.parseLong(topicConfigs.value(topic, name).trim());
    }

    private static PartitionId id(Topic topic, int partition) {
        return new PartitionId(topic.id(), partition);
    }
}
