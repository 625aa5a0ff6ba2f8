package io.floe.core.metadata;

import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.topic.UnknownTopicException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The metadata role of the read path: partitions' markers, the batch index, producer state and log
 * sizes. Every method is a read. Follows the {@linkplain io.floe.core.metadata package contract}.
 */
public interface LogReads {

    /**
     * The partition's log start, last stable offset and high watermark; {@link UnknownTopicException}
     * when the topic does not exist.
     */
    LogOffsets offsets(TopicPartition topicPartition) throws UnknownTopicException;

    /**
     * Up to {@code maxBatches} committed batches of the partition whose {@code lastOffset >= fromOffset}
     * and that are still above the log start, in offset order.
     */
    List<BatchCoordinate> batches(TopicPartition topicPartition, long fromOffset, int maxBatches);

    /**
     * {@link #batches(TopicPartition, long, int)} for several partitions, in one read where the store
     * can (a fetch plans all its partitions with one round trip): the answers in the queries' order.
     * A partition of a topic that does not exist has no batches.
     */
    List<List<BatchCoordinate>> batches(List<BatchesQuery> queries);

    /**
     * {@link #batches(List)} with the partitions' transaction markers among the batches, in offset
     * order: what the fetch path serves. Each answer holds up to {@code maxBatches} entries.
     */
    List<List<LogEntry>> entries(List<BatchesQuery> queries);

    /**
     * The partition's aborted transactions whose ranges meet {@code [fromOffset, toOffset)} (marker
     * at or after {@code fromOffset}, first offset before {@code toOffset}), by first offset; empty for
     * a partition that does not exist.
     *
     * @throws OffsetOutOfRangeException when {@code fromOffset} is below the log start: retention
     *     removes the markers there with the records, so the answer could miss an abort whose records a
     *     caller read before they were removed (the fetch then answers OFFSET_OUT_OF_RANGE)
     */
    List<AbortedTransaction> abortedTransactions(TopicPartition topicPartition, long fromOffset, long toOffset);

    /** The first batch (lowest offset) whose max timestamp is {@code >= timestamp}. */
    Optional<BatchCoordinate> firstBatchAtOrAfter(TopicPartition topicPartition, long timestamp);

    /** The batch holding the partition's largest timestamp (the earliest such batch on ties). */
    Optional<BatchCoordinate> batchWithMaxTimestamp(TopicPartition topicPartition);

    /**
     * A number that grows, within the same transaction, whenever committed batches move or disappear
     * other than by being appended to: a {@link ObjectLifecycle#rewrite rewrite} (compaction, key
     * compaction), a log start that moves ({@link LogRetention#truncateLog},
     * {@link LogRetention#deleteRecords}), a topic deleted. An agent that indexes batches in memory
     * reads it before it serves from that index: while it has not changed, every batch the agent
     * indexed is still where it was. Writes through this store show at once; a store shared with other
     * processes may answer from a read up to 100 ms old for theirs.
     */
    long logRewrites();

    /**
     * The bytes of the batches at or above the log start of each partition of {@code topic} (a batch
     * reaching across the log start counts whole), by partition index: what the partition's log
     * occupies in objects.
     *
     * @throws UnknownTopicException when the topic does not exist
     */
    Map<Integer, Long> partitionSizes(String topic) throws UnknownTopicException;

    /**
     * The idempotent producers with state on the partition, by producer id (every producer that
     * appended to it and was not expired by {@link LogRetention#expireProducers}).
     *
     * @throws UnknownTopicException when the topic or partition does not exist
     */
    List<ActiveProducer> producers(TopicPartition topicPartition) throws UnknownTopicException;

    /**
     * Every partition with an open transaction (its last stable offset below its high watermark), with
     * its markers as {@link #offsets} gives them: one read for the whole store.
     */
    Map<TopicPartition, LogOffsets> unstableLogs();
}
