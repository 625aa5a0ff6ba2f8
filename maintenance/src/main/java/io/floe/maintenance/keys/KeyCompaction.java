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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One key compaction round over the partitions of topics whose {@code cleanup.policy} includes
 * {@code compact} (DESIGN §5), with Kafka's eligibility rules. For each it follows the emulated active
 * segment ({@link ActiveSegments}), which is never cleaned, scans the dirty section below it, the
 * batches from its clean offset on, up to the first that must wait ({@link DirtyScan}), and decides
 * whether a pass is due: the dirty bytes are more than {@code min.cleanable.dirty.ratio} of the bytes
 * below the active segment, or the oldest dirty record is older than {@code max.compaction.lag.ms}, or
 * a kept tombstone's delete horizon has passed. Due partitions are cleaned dirtiest first, until the
 * round has read the run budget (at least one partition), each by a {@link PartitionPass} followed by
 * the removal of the transaction markers the cleaned section no longer needs ({@link MarkerCleaner});
 * a partition whose only news is a marker's passed delete horizon gets the marker removal alone.
 *
 * <p>Clean offsets live in this job's memory, by topic id, so a new holder of the lease (or this agent
 * after a restart) starts each partition's first pass at its log start, as Kafka does without its
 * cleaner checkpoint file: more reading, never a wrong result (see {@link Checkpoint}).
 */
public final class KeyCompaction implements Job {

    public static final String NAME = "key-compaction";
    private static final Logger LOGGER = LoggerFactory.getLogger(KeyCompaction.class);
    private static final int PAGE_ROWS = 1000;
    /** Batches one pass maps at most (their coordinates are held in memory). */
    private static final int DIRTY_ROWS_MAX = 100_000;

    /** A compacted partition as its scan found it. */
    private record Candidate(
            Topic topic,
            int partition,
            LogOffsets offsets,
            ActiveSegment active,
            DirtySection dirty,
            double dirtyRatio) {

        PartitionId id() {
            return PartitionId.of(topic, partition);
        }

        TopicPartition topicPartition() {
            return new TopicPartition(topic.name(), partition);
        }
    }

    private final MaintenanceConfig config;
    private final TopicMetadata topics;
    private final LogReads metadata;
    private final TopicConfigs topicConfigs;
    private final KeyCompactionMeters meters;
    private final PartitionPass.Context context;
    private final ActiveSegments segments;
    private final MarkerCleaner markers;
    private final Map<PartitionId, Checkpoint> checkpoints = new HashMap<>();
    private KeyOffsetMap map;
    private long markersRemoved;

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
        this.segments = new ActiveSegments(metadata.reads(), metadata.retention());
        this.markers = new MarkerCleaner(metadata.retention(), this.meters.markersRemoved);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized String run(Instant now) {
        Map<PartitionId, Long> lags = new HashMap<>();
        List<Candidate> candidates = scan(now, lags);
        List<Candidate> due = new ArrayList<>();
        for (Candidate candidate : candidates) {
            if (isDue(candidate, checkpoint(candidate.id()), now)) {
                due.add(candidate);
            }
        }
        due.sort(Comparator.comparingDouble(Candidate::dirtyRatio).reversed());
        long budget = config.compactionRunBytesMax();
        long read = 0;
        int attempted = 0;
        int cleaned = 0;
        long removed = 0;
        markersRemoved = 0;
        Set<PartitionId> passed = new HashSet<>();
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
                    longConfig(candidate.topic(), TopicConfigs.DELETE_RETENTION_MS));
            PartitionPass.Result result = clean(pass, candidate, now);
            read += pass.bytesRead();
            passed.add(candidate.id());
            if (result != null && result.complete()) {
                cleaned++;
                removed += result.recordsRemoved();
                lags.put(candidate.id(), lagAfter(candidate, checkpoints.get(candidate.id()), now));
            }
        }
        int markerSections = 0;
        for (Candidate candidate : candidates) {
            Checkpoint checkpoint = checkpoint(candidate.id());
            if (!passed.contains(candidate.id()) && now.toEpochMilli() >= checkpoint.markerHorizonMs()) {
                checkpoints.put(candidate.id(), cleanMarkers(candidate, checkpoint, now));
                markerSections++;
            }
        }
        meters.lagMs.set(lags.values().stream().mapToLong(Long::longValue).max().orElse(0));
        if (due.isEmpty() && markerSections == 0) {
            return "";
        }
        return "due=" + due.size() + " cleaned=" + cleaned + " recordsRemoved=" + removed + " markersRemoved="
                + markersRemoved;
    }

    /** Scans every compacted partition and fills {@code lags}. */
    private List<Candidate> scan(Instant now, Map<PartitionId, Long> lags) {
        List<Candidate> candidates = new ArrayList<>();
        Set<PartitionId> seen = new HashSet<>();
        for (Topic topic : topics.topics()) {
            if (!topicConfigs.compacted(topic)) {
                continue;
            }
            try {
                Map<Integer, Long> sizes = metadata.partitionSizes(topic.name());
                for (int partition = 0; partition < topic.partitionCount(); partition++) {
                    PartitionId id = PartitionId.of(topic, partition);
                    seen.add(id);
                    try {
                        Candidate candidate = assess(topic, partition, sizes.getOrDefault(partition, 0L), now);
                        candidate
                                .dirty()
                                .oldestTimestamp()
                                .ifPresent(oldest -> lags.put(id, Math.max(0, now.toEpochMilli() - oldest)));
                        candidates.add(candidate);
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
        segments.retainAll(seen);
        return candidates;
    }

    private Candidate assess(Topic topic, int partition, long logBytes, Instant now) {
        TopicPartition tp = new TopicPartition(topic.name(), partition);
        LogOffsets offsets = metadata.offsets(tp);
        PartitionId id = PartitionId.of(topic, partition);
        ActiveSegment active = segments.advance(id, tp, limits(topic));
        long start = Math.max(checkpoint(id).cleanOffset(), offsets.logStartOffset());
        long minLagMs = longConfig(topic, TopicConfigs.MIN_COMPACTION_LAG_MS);
        DirtyScan scan = new DirtyScan(
                active.baseOffset(),
                offsets.lastStableOffset(),
                minLagMs > 0 ? now.toEpochMilli() - minLagMs : Long.MAX_VALUE,
                now.minus(config.compactionMinAge()),
                KeyOffsetMap.capacityFor(config.keyCompactionBufferBytes()),
                DIRTY_ROWS_MAX);
        long next = start;
        List<BatchCoordinate> page;
        scanning:
        while (next < active.baseOffset() && !(page = metadata.batches(tp, next, PAGE_ROWS)).isEmpty()) {
            for (BatchCoordinate row : page) {
                if (!scan.offer(row)) {
                    break scanning;
                }
                next = row.nextOffset();
            }
        }
        DirtySection dirty = scan.result(start);
        // Kafka's cleanable ratio: dirty bytes over the bytes of the log below its active segment.
        long belowActive = logBytes - active.batchBytes();
        double ratio = belowActive <= 0 ? 0 : (double) dirty.bytes() / belowActive;
        return new Candidate(topic, partition, offsets, active, dirty, ratio);
    }

    private boolean isDue(Candidate candidate, Checkpoint checkpoint, Instant now) {
        if (now.toEpochMilli() >= checkpoint.tombstoneHorizonMs()) {
            return true;
        }
        DirtySection dirty = candidate.dirty();
        if (dirty.cleanable().isEmpty()) {
            return false;
        }
        double minRatio = Double.parseDouble(topicConfigs
                .value(candidate.topic(), TopicConfigs.MIN_CLEANABLE_DIRTY_RATIO)
                .trim());
        long maxLagMs = longConfig(candidate.topic(), TopicConfigs.MAX_COMPACTION_LAG_MS);
        long oldest = dirty.cleanable().get(0).maxTimestamp();
        return candidate.dirtyRatio() > minRatio || now.toEpochMilli() - oldest > maxLagMs;
    }

    /** The key map, allocated on first use and kept: every pass clears it. */
    private KeyOffsetMap map() {
        if (map == null) {
            map = new KeyOffsetMap(config.keyCompactionBufferBytes());
        }
        return map;
    }

    /** Runs one pass; records the new checkpoint when it completed. Null when it failed. */
    private PartitionPass.Result clean(PartitionPass pass, Candidate candidate, Instant now) {
        Topic topic = candidate.topic();
        PartitionId id = candidate.id();
        try {
            PartitionPass.Result result = pass.run(candidate.offsets().logStartOffset(), candidate.dirty());
            if (result.complete()) {
                long cleanOffset =
                        Math.max(checkpoint(id).cleanOffset(), candidate.dirty().end());
                Checkpoint cleaned = new Checkpoint(cleanOffset, result.tombstoneHorizonMs(), Long.MAX_VALUE);
                checkpoints.put(id, cleanMarkers(candidate, cleaned, now));
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

    /**
     * Removes the markers the section below the checkpoint's clean offset no longer needs; returns the
     * checkpoint with the earliest horizon of a marker kept there (due again at once when it failed).
     */
    private Checkpoint cleanMarkers(Candidate candidate, Checkpoint checkpoint, Instant now) {
        // A fetch that planned a batch before a pass removed it reads the object for up to the delete
        // delay, and asks for the aborted transactions after its plan: the marker stays at least that long.
        long holdMs = Math.max(
                longConfig(candidate.topic(), TopicConfigs.DELETE_RETENTION_MS),
                config.objectDeleteDelay().toMillis());
        Instant horizon = Instant.ofEpochMilli(saturatedSum(now.toEpochMilli(), holdMs));
        try {
            MarkerCleaner.Cleaned cleaned = markers.clean(
                    candidate.topicPartition(),
                    candidate.offsets().logStartOffset(),
                    checkpoint.cleanOffset(),
                    now,
                    horizon);
            markersRemoved += cleaned.removed();
            return checkpoint.withMarkerHorizon(cleaned.earliestHorizonMs());
        } catch (UnknownTopicException deletedMeanwhile) {
            return checkpoint;
        } catch (RuntimeException e) {
            meters.failures.increment();
            LOGGER.warn(
                    "key compaction marker cleaning failed topic={} partition={}: {}",
                    candidate.topic().name(),
                    candidate.partition(),
                    e.toString(),
                    e);
            return checkpoint.withMarkerHorizon(now.toEpochMilli());
        }
    }

    /** The emulated segments' rules of {@code topic}. */
    private ActiveSegment.Limits limits(Topic topic) {
        return ActiveSegment.Limits.of(
                longConfig(topic, TopicConfigs.SEGMENT_BYTES),
                longConfig(topic, TopicConfigs.SEGMENT_MS),
                longConfig(topic, TopicConfigs.MAX_COMPACTION_LAG_MS));
    }

    /** The age of the oldest record between the partition's new clean offset and its active segment, 0 when none. */
    private long lagAfter(Candidate candidate, Checkpoint checkpoint, Instant now) {
        if (checkpoint.cleanOffset() >= candidate.active().baseOffset()) {
            return 0;
        }
        List<BatchCoordinate> first = metadata.batches(candidate.topicPartition(), checkpoint.cleanOffset(), 1);
        return first.isEmpty()
                        || first.get(0).baseOffset() >= candidate.active().baseOffset()
                ? 0
                : Math.max(0, now.toEpochMilli() - first.get(0).maxTimestamp());
    }

    private Checkpoint checkpoint(PartitionId id) {
        return checkpoints.getOrDefault(id, Checkpoint.NONE);
    }

    private long longConfig(Topic topic, String name) {
        return Long.parseLong(topicConfigs.value(topic, name).trim());
    }

    private static long saturatedSum(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
