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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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

    /**
     * {@link #batches(TopicPartition, long, int)} for several partitions, in one read where the store
     * can (a fetch plans all its partitions with one round trip): the answers in the queries' order.
     * A partition of a topic that does not exist has no batches.
     */
    default List<List<BatchCoordinate>> batches(List<BatchesQuery> queries) {
        List<List<BatchCoordinate>> answers = new ArrayList<>(queries.size());
        for (BatchesQuery query : queries) {
            answers.add(batches(query.topicPartition(), query.fromOffset(), query.maxBatches()));
        }
        return answers;
    }

    /** The first batch (lowest offset) whose max timestamp is {@code >= timestamp}. */
    Optional<BatchCoordinate> firstBatchAtOrAfter(TopicPartition topicPartition, long timestamp);

    /** The batch holding the partition's largest timestamp (the earliest such batch on ties). */
    Optional<BatchCoordinate> batchWithMaxTimestamp(TopicPartition topicPartition);

    /**
     * A number that grows, within the same transaction, whenever committed batches move or disappear
     * other than by being appended to: a {@link #rewrite rewrite} (compaction, key compaction), a log
     * start that moves ({@link #truncateLog}, {@link #deleteRecords}), a topic deleted. An agent that
     * indexes batches in memory reads it before it serves from that index: while it has not changed,
     * every batch the agent indexed is still where it was. Writes through this store show at once; a
     * store shared with other processes may answer from a read up to 100 ms old for theirs.
     */
    long logRewrites();

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

    // ----- node ids and coordinator leases (DESIGN §8, fencing of coordinators)

    /**
     * Takes the lowest node id that no running lease holds, for {@code agentId} until {@code now + ttl}.
     * When {@code agentId} already holds a live lease on an id, that lease is renewed and returned. Two
     * agents allocating at once get different ids; an id whose holder's lease ran out is taken again.
     */
    NodeIdLease allocateNodeId(String agentId, Instant now, Duration ttl);

    /**
     * Takes node id {@code nodeId} for {@code agentId} until {@code now + ttl}, or renews it when
     * {@code agentId} holds it already (at the same epoch while the lease ran; at a new one after it
     * ran out). {@link NodeIdClaim.Held} names the other agent while its lease runs.
     */
    NodeIdClaim claimNodeId(int nodeId, String agentId, Instant now, Duration ttl);

    /**
     * {@link #heartbeatAgent(AgentRegistration)} and the renewal of the agent's node id lease
     * ({@code registration.nodeId()}, for {@code ttl} from the heartbeat time) in one transaction: the
     * membership heartbeat keeps the id. When another agent holds the id (this agent's lease ran out
     * while it was paused, and the id was taken), records nothing and answers {@link NodeIdClaim.Held}.
     */
    NodeIdClaim heartbeatAgent(AgentRegistration registration, Duration ttl);

    /** Gives up {@code lease} early (a clean shutdown); does nothing when it is no longer held at that epoch. */
    void releaseNodeId(NodeIdLease lease);

    /**
     * Takes the coordinator lease of group {@code groupId} for {@code owner} until {@code now + ttl}:
     * granted when nobody holds it, when its holder's lease ran out or was released (the epoch then
     * grows), or as a renewal at the same epoch when {@code owner} holds it. Empty while another
     * owner's lease runs. {@code sessionTimeout} is the longest session timeout of the owner's members;
     * the next holder's {@link CoordinatorLease#priorMembersUntil()} is this lease's end plus it.
     */
    Optional<CoordinatorLease> acquireCoordinator(String groupId, String owner, Instant now, Duration ttl,
            Duration sessionTimeout);

    /**
     * Gives up {@code lease} at {@code now} (the group moved to another agent, or this one stops): the
     * next holder need not wait for it to run out. Does nothing when it is no longer held at that epoch.
     */
    void releaseCoordinator(CoordinatorLease lease, Instant now);

    /**
     * {@link #commitOffsets(String, Map)} fenced by the coordinator lease: in one transaction, stores
     * the offsets only while the group's lease is still held by {@code coordinator.owner()} at
     * {@code coordinator.epoch()}. Returns false, and stores nothing, when it is not.
     */
    boolean commitOffsets(CoordinatorLease coordinator, Map<TopicPartition, CommittedOffset> offsets);

    // ----- maintenance (DESIGN §5): leases, compaction, retention, cleanup

    /**
     * Takes the lease on {@code job} for {@code owner} until {@code now + ttl}: granted when nobody
     * holds it, when its holder's lease expired (the epoch then grows), or as a renewal when
     * {@code owner} holds it already. Empty while another owner's lease runs.
     */
    Optional<JobLease> acquireLease(String job, String owner, Instant now, Duration ttl);

    /** Gives up {@code lease} early; does nothing when it is no longer held at that epoch. */
    void releaseLease(JobLease lease);

    /** Committed objects smaller than {@code sizeBelowBytes} and registered before the given time, oldest first. */
    List<StoredObject> smallObjects(long sizeBelowBytes, Instant registeredBefore, int max);

    /** Every batch row pointing into {@code objects}, ordered by object then byte position. */
    List<BatchCoordinate> batchesIn(Collection<ObjectKey> objects);

    /**
     * Compaction's and key compaction's swap, in one transaction: consumes the output's registration
     * (when there is an output), points every moved batch row at its new range, length and max
     * timestamp, deletes every removed batch row (compare-and-swap: each moved or removed row must
     * still point at the object, position and length the plan read, or nothing applies), and
     * schedules objects that lost their last reference for deletion after {@code deleteAfter}. Offsets
     * and markers never change: a removed row leaves a gap, and reads from an offset in it start at
     * the next batch.
     */
    RewriteOutcome rewrite(ObjectRewrite rewrite, Instant deleteAfter);

    /**
     * Moves the log start of {@code topicPartition} up to {@code newLogStart} (never down, never past
     * the high watermark, never above the partition's lowest {@link #holdRetention retention hold},
     * read in the same transaction as the change), removes the batch rows that lie entirely below it
     * and schedules objects that lost their last reference for deletion after {@code deleteAfter}.
     * Returns the log start: below {@code newLogStart} when a hold stopped it.
     */
    long truncateLog(TopicPartition topicPartition, long newLogStart, Instant deleteAfter)
            throws UnknownTopicException;

    /**
     * Sets {@code holder}'s retention hold on partitions of {@code topic} (partition index → offset),
     * replacing its earlier hold on each: retention never moves a log start above the lowest hold on the
     * partition. Tableflow holds each partition at its table's watermark, so retention never removes a
     * record the table has not read. DeleteRecords ignores holds (an explicit request).
     *
     * @throws UnknownTopicException when the topic does not exist
     */
    void holdRetention(String holder, String topic, Map<Integer, Long> offsets) throws UnknownTopicException;

    /** Removes {@code holder}'s holds on every partition of {@code topic}; nothing when it has none. */
    void releaseRetention(String holder, String topic);

    /** The lowest hold on each held partition of {@code topic}, by partition index; empty when none. */
    Map<Integer, Long> retentionHolds(String topic);

    /**
     * The orphan sweep's fence (DESIGN §3 step 7), in one transaction: registrations made before
     * {@code registeredBefore} and never committed are scheduled for deletion now (a commit that comes
     * later is rejected), and committed objects no batch row points to any more (their topic was
     * deleted) after {@code deleteAfter}. Returns how many objects it scheduled.
     */
    int scheduleUnreferenced(Instant registeredBefore, Instant now, Instant deleteAfter);

    /** Deletions due at {@code now}, soonest first, at most {@code max}. */
    List<ObjectDeletion> dueDeletions(Instant now, int max);

    /** Forgets scheduled deletions whose objects are gone from the object store. */
    void forgetDeletions(Collection<ObjectKey> deleted);

    /** Those of {@code keys} the store has no row for: neither registered, committed nor scheduled for deletion. */
    Set<ObjectKey> unknownObjects(Collection<ObjectKey> keys);

    StorageStats storageStats();

    /**
     * An audit, in one consistent read: every object whose reference count differs from the number
     * of batch rows pointing into it, and every key batch rows point at without an object row, by
     * object key. Empty while the counts are exact, which every write must keep them under any
     * concurrency; tests and operators check it after concurrent maintenance.
     */
    List<ReferenceMismatch> referenceMismatches();

    /** A short description for logs: the kind of store and where it is. */
    String describe();

    /**
     * True for a store embedded in this process (SQLite): only this process writes it, and its reads
     * are local and short. The agent may then answer from its own memory what it would otherwise ask
     * the store, and run short reads where it would not block on a network round trip.
     */
    default boolean embedded() {
        return false;
    }

    @Override
    void close();
}
