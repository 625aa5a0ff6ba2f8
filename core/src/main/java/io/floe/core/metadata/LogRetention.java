package io.floe.core.metadata;

import io.floe.core.log.TopicPartition;
import io.floe.core.topic.UnknownTopicException;
import java.time.Instant;
import java.util.Map;

/**
 * The metadata role of log administration: moving log starts (DeleteRecords, retention), the holds
 * that stop retention, and producer-state expiry. Follows the {@linkplain io.floe.core.metadata
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
}
