package io.floe.core.metadata;

import io.floe.core.log.TopicPartition;
import io.floe.core.topic.UnknownTopicException;
import java.time.Instant;
import java.util.Map;

/**
 * The metadata role of log administration: moving log starts (DeleteRecords, retention), the holds
 * that stop retention, producer-state expiry, and key compaction's transaction markers and emulated
 * segments. Follows the {@linkplain io.floe.core.metadata
 * package contract}; each method's kind is its {@link MetadataOperation}.
 */
public interface LogRetention {

    /**
     * Moves the partition's log start up to {@code beforeOffset} (Kafka's DeleteRecords), in one
     * transaction, and returns the log start after it. Never moves it backwards: an offset at or below
     * the current log start changes nothing. Batches wholly below the new log start are no longer
     * returned by reads; removing their rows is retention's job. Idempotent.
     *
     * @throws OffsetOutOfRangeException when {@code beforeOffset} is negative or above the high watermark
     * @throws UnknownTopicException when the topic or partition does not exist
     */
    long deleteRecords(TopicPartition topicPartition, long beforeOffset)
            throws OffsetOutOfRangeException, UnknownTopicException;

    /**
     * Moves the log start of {@code topicPartition} up to {@code newLogStart} (never down, never past
     * the high watermark, never above the partition's lowest {@link #holdRetention retention hold},
     * read in the same transaction as the change), removes the batch rows that lie entirely below it
     * and schedules objects that lost their last reference for deletion after {@code deleteAfter}.
     * Returns the log start: below {@code newLogStart} when a hold stopped it. Idempotent.
     */
    long truncateLog(TopicPartition topicPartition, long newLogStart, Instant deleteAfter) throws UnknownTopicException;

    /**
     * Sets {@code holder}'s retention hold on partitions of {@code topic} (partition index → offset),
     * replacing its earlier hold on each: retention never moves a log start above the lowest hold on the
     * partition. Tableflow holds each partition at its table's watermark, so retention never removes a
     * record the table has not read. DeleteRecords ignores holds (an explicit request). Idempotent.
     *
     * @throws UnknownTopicException when the topic does not exist
     */
    void holdRetention(String holder, String topic, Map<Integer, Long> offsets) throws UnknownTopicException;

    /** Removes {@code holder}'s holds on every partition of {@code topic}; nothing when it has none. Idempotent. */
    void releaseRetention(String holder, String topic);

    /** The lowest hold on each held partition of {@code topic}, by partition index; empty when none. */
    Map<Integer, Long> retentionHolds(String topic);

    /**
     * Forgets the state (epoch, sequences, last batches) of each producer whose last write to a partition
     * is older than {@code writtenBefore}, per producer and partition, as Kafka does after
     * {@code producer.id.expiration.ms}; returns how many were forgotten. Such a producer's next batch
     * there must start at sequence 0 (of a new epoch: clients bump it when refused). A row whose time is
     * not known yet (written by an older version) gets the store's clock's time, so it is forgotten only
     * after one more expiration period. Idempotent; safe with commits running (a producer that writes
     * while this runs keeps its state).
     */
    int expireProducers(Instant writtenBefore);

    /**
     * Key compaction's removal of transaction markers, as Kafka's cleaner removes control batches: looks
     * at the partition's markers in {@code [fromOffset, toOffset)} (a section key compaction has
     * cleaned), at most {@code maxMarkers} of them, in offset order, and
     * <ol>
     *   <li>removes each whose delete horizon, set by an earlier call, is at or before {@code now};</li>
     *   <li>gives {@code deleteHorizon} to each that has none yet and that no batch of its producer
     *       lies before any more, from the first offset of its transaction up to the marker (for an
     *       abort marker: every record it aborts is gone; for a commit marker: its transaction's
     *       records are all superseded). A marker never loses its horizon, and none is removed in the
     *       call that gave it one.</li>
     * </ol>
     * Moves the {@linkplain LogReads#logRewrites log rewrites counter} when it removed a marker. Safe to
     * repeat; nothing for a partition that does not exist.
     *
     * @return where a next call continues ({@code toOffset} when the section is done), the markers
     *     removed, and the earliest horizon of a marker kept among those looked at
     */
    MarkerCleaning cleanMarkers(
            TopicPartition topicPartition,
            long fromOffset,
            long toOffset,
            Instant now,
            Instant deleteHorizon,
            int maxMarkers);

    /**
     * The first offset of the partition's emulated active segment, as key compaction last recorded it
     * ({@link #rollSegment}); 0 when it never did. Kafka never cleans its active segment, and Floe,
     * which has no segments, works out where Kafka would have rolled one from the batch rows above
     * this offset, which key compaction leaves as they were appended.
     *
     * @throws UnknownTopicException when the topic or partition does not exist
     */
    long activeSegment(TopicPartition topicPartition) throws UnknownTopicException;

    /**
     * Records that the partition's emulated active segment now begins at {@code baseOffset}; never moves
     * it back. Returns the first offset of the active segment after the call. Idempotent.
     *
     * @throws UnknownTopicException when the topic or partition does not exist
     */
    long rollSegment(TopicPartition topicPartition, long baseOffset) throws UnknownTopicException;
}
