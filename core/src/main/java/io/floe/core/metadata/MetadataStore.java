package io.floe.core.metadata;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.TopicExistsException;
import io.floe.core.topic.UnknownTopicException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The single source of truth for topics, partitions, offsets, the batch index, producer state,
 * consumer groups' committed offsets and the agents' membership.
 *
 * <p>Contract, for every implementation:
 * <ul>
 *   <li>Every method is one transaction: it applies entirely or not at all. Methods are safe to call
 *       from many threads; concurrent commits to the same partition are serialized by the store.</li>
 *   <li>{@link #commit} assigns offsets densely ({@code baseOffset = highWatermark}, then the
 *       watermark advances by the record count), checks producer sequences in batch order, and
 *       consumes the upload's registration: a commit for an object that was never registered, or
 *       whose registration was swept, is {@link CommitOutcome.Rejected}. A failure whose outcome is
 *       not known (the connection broke after the statement was sent) is
 *       {@link CommitOutcome.Unknown}; the store never reports {@code Committed} for a commit it
 *       did not apply, nor {@code Rejected} for one it did. Committing an object again (a retry
 *       after {@code Unknown}) appends nothing: the outcome is {@code Committed}, with
 *       {@link AppendResult.Duplicate} at the original offset for each batch the first commit
 *       appended.</li>
 *   <li>Reads see every commit that returned before they began (read-your-writes for one store
 *       instance, and across instances sharing one database).</li>
 *   <li>Other failures throw {@link MetadataStoreException}; topic lookups throw
 *       {@link UnknownTopicException} and {@link TopicExistsException} as documented.</li>
 * </ul>
 */
public interface MetadataStore extends AutoCloseable {

    // ----- topics

    /** Creates a topic with a fresh id and empty logs. */
    Topic createTopic(NewTopic topic) throws TopicExistsException;

    /**
     * Deletes a topic with its partitions, batch rows and producer state. Objects that held only
     * its batches lose their last reference; deleting them is the cleanup's job.
     */
    void deleteTopic(String name) throws UnknownTopicException;

    /** Raises the partition count to {@code totalCount}; new partitions start empty. */
    Topic createPartitions(String name, int totalCount) throws UnknownTopicException, InvalidPartitionsException;

    /** Replaces the topic's config overrides with {@code configs}. */
    Topic setTopicConfigs(String name, Map<String, String> configs) throws UnknownTopicException;

    Optional<Topic> topic(String name);

    /** All topics, by name. */
    List<Topic> topics();

    // ----- producers

    /** A producer id never handed out before (ids are unique across the cluster and across restarts). */
    long allocateProducerId();

    // ----- produce path

    /**
     * Records that {@code object} is about to be uploaded by {@code agentId}. This is the fence that
     * makes orphan cleanup safe: cleanup only deletes objects whose registration it removed first.
     */
    void registerUpload(ObjectKey object, String agentId, Instant registeredAt);

    /**
     * Registers several uploads at once; implementations should do it in one transaction (one
     * durable write instead of one each), as agents reserve keys ahead of their flushes.
     */
    default void registerUploads(List<ObjectKey> objects, String agentId, Instant registeredAt) {
        for (ObjectKey object : objects) {
            registerUpload(object, agentId, registeredAt);
        }
    }

    /** Commits the batches of one uploaded object in one transaction; see the class contract. */
    CommitOutcome commit(ObjectCommit commit);

    // ----- read path

    /** The partition's markers; {@link UnknownTopicException} when the topic does not exist. */
    LogOffsets offsets(TopicPartition topicPartition) throws UnknownTopicException;

    /**
     * Up to {@code maxBatches} committed batches of the partition whose {@code lastOffset >= fromOffset}
     * and that are still above the log start, in offset order.
     */
    List<BatchCoordinate> batches(TopicPartition topicPartition, long fromOffset, int maxBatches);

    /** The first batch (lowest offset) whose max timestamp is {@code >= timestamp}. */
    Optional<BatchCoordinate> firstBatchAtOrAfter(TopicPartition topicPartition, long timestamp);

    /** The batch holding the partition's largest timestamp (the earliest such batch on ties). */
    Optional<BatchCoordinate> batchWithMaxTimestamp(TopicPartition topicPartition);

    // ----- log administration

    /**
     * Moves the partition's log start up to {@code beforeOffset} (Kafka's DeleteRecords), in one
     * transaction, and returns the log start after it. Never moves it backwards: an offset at or below
     * the current log start changes nothing. Batches wholly below the new log start are no longer
     * returned by reads; removing their rows is retention's job.
     *
     * @throws OffsetOutOfRangeException when {@code beforeOffset} is negative or above the high watermark
     * @throws UnknownTopicException when the topic or partition does not exist
     */
    long deleteRecords(TopicPartition topicPartition, long beforeOffset)
            throws OffsetOutOfRangeException, UnknownTopicException;

    /**
     * The idempotent producers with state on the partition, by producer id (every producer that
     * appended to it; Floe does not expire producer state yet).
     *
     * @throws UnknownTopicException when the topic or partition does not exist
     */
    List<ActiveProducer> producers(TopicPartition topicPartition) throws UnknownTopicException;

    /**
     * The bytes of the batches at or above the log start of each partition of {@code topic} (a batch
     * reaching across the log start counts whole), by partition index: what the partition's log
     * occupies in objects.
     *
     * @throws UnknownTopicException when the topic does not exist
     */
    Map<Integer, Long> partitionSizes(String topic) throws UnknownTopicException;

    // ----- consumer group offsets

    /**
     * Stores {@code offsets} for {@code groupId} in one transaction, each replacing the group's earlier
     * commit for its partition. Topics are not checked: the caller validates them first. Offsets
     * outlive the topic's deletion only until {@link #deleteTopicOffsets} runs.
     */
    void commitOffsets(String groupId, Map<TopicPartition, CommittedOffset> offsets);

    /** Every offset {@code groupId} committed, by partition; empty when it has none. */
    Map<TopicPartition, CommittedOffset> committedOffsets(String groupId);

    /** Deletes the group's offsets of {@code partitions}; returns how many existed. */
    int deleteOffsets(String groupId, Collection<TopicPartition> partitions);

    /** Deletes every offset of {@code groupId}; returns how many existed. */
    int deleteGroupOffsets(String groupId);

    /** Deletes every group's offsets of {@code topic}, as when the topic is deleted; returns how many existed. */
    int deleteTopicOffsets(String topic);

    /**
     * Deletes the offsets of {@code groupId} committed before {@code committedBefore} (retention);
     * returns how many.
     */
    int expireOffsets(String groupId, Instant committedBefore);

    /** The ids of all groups with at least one committed offset, sorted. */
    List<String> offsetGroups();

    // ----- membership

    /**
     * Records a heartbeat of {@code registration.agentId()}: inserts the agent, or replaces its
     * address, rack and heartbeat time. Agents call it periodically; every agent's store sees it.
     */
    void heartbeatAgent(AgentRegistration registration);

    /**
     * The agents whose last heartbeat is after {@code heartbeatAfter}, sorted by agent id. Heartbeat
     * times come from each agent's clock, so callers leave a margin for clock skew.
     */
    List<AgentRegistration> liveAgents(Instant heartbeatAfter);

    /** Removes the agent from the membership (on a clean shutdown); returns whether it was registered. */
    boolean removeAgent(String agentId);

    /** A short description for logs: the kind of store and where it is. */
    String describe();

    @Override
    void close();
}
