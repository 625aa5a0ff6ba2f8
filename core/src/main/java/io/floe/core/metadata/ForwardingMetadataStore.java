package io.floe.core.metadata;

import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.group.GroupMembership;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.OpenTransaction;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A {@link MetadataStore} that forwards every operation to another, each through one hook,
 * {@link #call}, with the operation's {@link MetadataOperation} constant: the base of decorators
 * (fault injection, recording, metrics, retries), which override the hook and decide by the
 * operation's {@link OperationKind}. A test that needs to intercept one method overrides that method
 * (an anonymous subclass) and calls {@code super}. {@link #describe}, {@link #embedded} and
 * {@link #close} are properties of the store, not operations: they forward without the hook.
 */
public class ForwardingMetadataStore implements MetadataStore {

    private final MetadataStore delegate;

    public ForwardingMetadataStore(MetadataStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The store this one forwards to. */
    protected final MetadataStore delegate() {
        return delegate;
    }

    /**
     * Runs {@code operation} on the delegate ({@code call}) and returns its result; every method of the
     * roles passes here. This one only runs it.
     */
    protected <T> T call(MetadataOperation operation, Supplier<T> call) {
        return call.get();
    }

    private void run(MetadataOperation operation, Runnable call) {
        call(operation, () -> {
            call.run();
            return null;
        });
    }

    @Override
    public Topic createTopic(NewTopic topic) {
        return call(MetadataOperation.CREATE_TOPIC, () -> delegate.createTopic(topic));
    }

    @Override
    public void deleteTopic(String name) {
        run(MetadataOperation.DELETE_TOPIC, () -> delegate.deleteTopic(name));
    }

    @Override
    public Topic createPartitions(String name, int totalCount) {
        return call(MetadataOperation.CREATE_PARTITIONS, () -> delegate.createPartitions(name, totalCount));
    }

    @Override
    public Topic setTopicConfigs(String name, Map<String, String> configs) {
        return call(MetadataOperation.SET_TOPIC_CONFIGS, () -> delegate.setTopicConfigs(name, configs));
    }

    @Override
    public Optional<Topic> topic(String name) {
        return call(MetadataOperation.TOPIC, () -> delegate.topic(name));
    }

    @Override
    public List<Topic> topics() {
        return call(MetadataOperation.TOPICS, () -> delegate.topics());
    }

    @Override
    public long allocateProducerId() {
        return call(MetadataOperation.ALLOCATE_PRODUCER_ID, () -> delegate.allocateProducerId());
    }

    @Override
    public void registerUpload(ObjectKey object, String agentId, Instant registeredAt) {
        run(MetadataOperation.REGISTER_UPLOAD, () -> delegate.registerUpload(object, agentId, registeredAt));
    }

    @Override
    public void registerUploads(List<ObjectKey> objects, String agentId, Instant registeredAt) {
        run(MetadataOperation.REGISTER_UPLOADS, () -> delegate.registerUploads(objects, agentId, registeredAt));
    }

    @Override
    public CommitOutcome commit(ObjectCommit commit) {
        return call(MetadataOperation.COMMIT, () -> delegate.commit(commit));
    }

    @Override
    public LogOffsets offsets(TopicPartition topicPartition) {
        return call(MetadataOperation.OFFSETS, () -> delegate.offsets(topicPartition));
    }

    @Override
    public List<BatchCoordinate> batches(TopicPartition topicPartition, long fromOffset, int maxBatches) {
        return call(MetadataOperation.BATCHES, () -> delegate.batches(topicPartition, fromOffset, maxBatches));
    }

    @Override
    public List<List<BatchCoordinate>> batches(List<BatchesQuery> queries) {
        return call(MetadataOperation.BATCHES_OF_QUERIES, () -> delegate.batches(queries));
    }

    @Override
    public List<List<LogEntry>> entries(List<BatchesQuery> queries) {
        return call(MetadataOperation.ENTRIES, () -> delegate.entries(queries));
    }

    @Override
    public List<AbortedTransaction> abortedTransactions(TopicPartition topicPartition, long fromOffset, long toOffset) {
        return call(
                MetadataOperation.ABORTED_TRANSACTIONS,
                () -> delegate.abortedTransactions(topicPartition, fromOffset, toOffset));
    }

    @Override
    public Optional<BatchCoordinate> firstBatchAtOrAfter(TopicPartition topicPartition, long timestamp) {
        return call(
                MetadataOperation.FIRST_BATCH_AT_OR_AFTER,
                () -> delegate.firstBatchAtOrAfter(topicPartition, timestamp));
    }

    @Override
    public Optional<BatchCoordinate> batchWithMaxTimestamp(TopicPartition topicPartition) {
        return call(MetadataOperation.BATCH_WITH_MAX_TIMESTAMP, () -> delegate.batchWithMaxTimestamp(topicPartition));
    }

    @Override
    public long logRewrites() {
        return call(MetadataOperation.LOG_REWRITES, () -> delegate.logRewrites());
    }

    @Override
    public Map<Integer, Long> partitionSizes(String topic) {
        return call(MetadataOperation.PARTITION_SIZES, () -> delegate.partitionSizes(topic));
    }

    @Override
    public List<ActiveProducer> producers(TopicPartition topicPartition) {
        return call(MetadataOperation.PRODUCERS, () -> delegate.producers(topicPartition));
    }

    @Override
    public Map<TopicPartition, LogOffsets> unstableLogs() {
        return call(MetadataOperation.UNSTABLE_LOGS, () -> delegate.unstableLogs());
    }

    @Override
    public long deleteRecords(TopicPartition topicPartition, long beforeOffset) {
        return call(MetadataOperation.DELETE_RECORDS, () -> delegate.deleteRecords(topicPartition, beforeOffset));
    }

    @Override
    public long truncateLog(TopicPartition topicPartition, long newLogStart, Instant deleteAfter) {
        return call(
                MetadataOperation.TRUNCATE_LOG, () -> delegate.truncateLog(topicPartition, newLogStart, deleteAfter));
    }

    @Override
    public void holdRetention(String holder, String topic, Map<Integer, Long> offsets) {
        run(MetadataOperation.HOLD_RETENTION, () -> delegate.holdRetention(holder, topic, offsets));
    }

    @Override
    public void releaseRetention(String holder, String topic) {
        run(MetadataOperation.RELEASE_RETENTION, () -> delegate.releaseRetention(holder, topic));
    }

    @Override
    public Map<Integer, Long> retentionHolds(String topic) {
        return call(MetadataOperation.RETENTION_HOLDS, () -> delegate.retentionHolds(topic));
    }

    @Override
    public int expireProducers(Instant writtenBefore) {
        return call(MetadataOperation.EXPIRE_PRODUCERS, () -> delegate.expireProducers(writtenBefore));
    }

    @Override
    public MarkerCleaning cleanMarkers(
            TopicPartition topicPartition,
            long fromOffset,
            long toOffset,
            Instant now,
            Instant deleteHorizon,
            int maxMarkers) {
        return call(
                MetadataOperation.CLEAN_MARKERS,
                () -> delegate.cleanMarkers(topicPartition, fromOffset, toOffset, now, deleteHorizon, maxMarkers));
    }

    @Override
    public long activeSegment(TopicPartition topicPartition) {
        return call(MetadataOperation.ACTIVE_SEGMENT, () -> delegate.activeSegment(topicPartition));
    }

    @Override
    public long rollSegment(TopicPartition topicPartition, long baseOffset) {
        return call(MetadataOperation.ROLL_SEGMENT, () -> delegate.rollSegment(topicPartition, baseOffset));
    }

    @Override
    public void commitOffsets(String groupId, Map<TopicPartition, CommittedOffset> offsets) {
        run(MetadataOperation.COMMIT_OFFSETS, () -> delegate.commitOffsets(groupId, offsets));
    }

    @Override
    public boolean commitOffsets(CoordinatorLease coordinator, Map<TopicPartition, CommittedOffset> offsets) {
        return call(MetadataOperation.COMMIT_OFFSETS_FENCED, () -> delegate.commitOffsets(coordinator, offsets));
    }

    @Override
    public Map<TopicPartition, CommittedOffset> committedOffsets(String groupId) {
        return call(MetadataOperation.COMMITTED_OFFSETS, () -> delegate.committedOffsets(groupId));
    }

    @Override
    public FetchedOffsets fetchOffsets(String groupId) {
        return call(MetadataOperation.FETCH_OFFSETS, () -> delegate.fetchOffsets(groupId));
    }

    @Override
    public OptionalInt deleteOffsets(CoordinatorLease coordinator, Collection<TopicPartition> partitions) {
        return call(MetadataOperation.DELETE_OFFSETS, () -> delegate.deleteOffsets(coordinator, partitions));
    }

    @Override
    public OptionalInt deleteGroupOffsets(CoordinatorLease coordinator) {
        return call(MetadataOperation.DELETE_GROUP_OFFSETS, () -> delegate.deleteGroupOffsets(coordinator));
    }

    @Override
    public int deleteTopicOffsets(String topic) {
        return call(MetadataOperation.DELETE_TOPIC_OFFSETS, () -> delegate.deleteTopicOffsets(topic));
    }

    @Override
    public int expireOffsets(String groupId, Instant committedBefore, String coordinator, Instant now) {
        return call(
                MetadataOperation.EXPIRE_OFFSETS,
                () -> delegate.expireOffsets(groupId, committedBefore, coordinator, now));
    }

    @Override
    public List<String> offsetGroups() {
        return call(MetadataOperation.OFFSET_GROUPS, () -> delegate.offsetGroups());
    }

    @Override
    public List<String> groupsCommittedBefore(Instant committedBefore) {
        return call(MetadataOperation.GROUPS_COMMITTED_BEFORE, () -> delegate.groupsCommittedBefore(committedBefore));
    }

    @Override
    public void heartbeatAgent(AgentRegistration registration) {
        run(MetadataOperation.HEARTBEAT_AGENT, () -> delegate.heartbeatAgent(registration));
    }

    @Override
    public NodeIdClaim heartbeatAgent(AgentRegistration registration, Duration ttl) {
        return call(MetadataOperation.HEARTBEAT_AGENT_RENEWING, () -> delegate.heartbeatAgent(registration, ttl));
    }

    @Override
    public List<AgentRegistration> liveAgents(Instant heartbeatAfter) {
        return call(MetadataOperation.LIVE_AGENTS, () -> delegate.liveAgents(heartbeatAfter));
    }

    @Override
    public boolean removeAgent(String agentId) {
        return call(MetadataOperation.REMOVE_AGENT, () -> delegate.removeAgent(agentId));
    }

    @Override
    public int expireAgents(Instant heartbeatBefore, int max) {
        return call(MetadataOperation.EXPIRE_AGENTS, () -> delegate.expireAgents(heartbeatBefore, max));
    }

    @Override
    public NodeIdLease allocateNodeId(String agentId, Instant now, Duration ttl) {
        return call(MetadataOperation.ALLOCATE_NODE_ID, () -> delegate.allocateNodeId(agentId, now, ttl));
    }

    @Override
    public NodeIdClaim claimNodeId(int nodeId, String agentId, Instant now, Duration ttl) {
        return call(MetadataOperation.CLAIM_NODE_ID, () -> delegate.claimNodeId(nodeId, agentId, now, ttl));
    }

    @Override
    public void releaseNodeId(NodeIdLease lease) {
        run(MetadataOperation.RELEASE_NODE_ID, () -> delegate.releaseNodeId(lease));
    }

    @Override
    public Optional<JobLease> acquireLease(String job, String owner, Instant now, Duration ttl) {
        return call(MetadataOperation.ACQUIRE_LEASE, () -> delegate.acquireLease(job, owner, now, ttl));
    }

    @Override
    public void releaseLease(JobLease lease) {
        run(MetadataOperation.RELEASE_LEASE, () -> delegate.releaseLease(lease));
    }

    @Override
    public Optional<CoordinatorLease> acquireCoordinator(
            String groupId, String owner, Instant now, Duration ttl, Duration sessionTimeout) {
        return call(
                MetadataOperation.ACQUIRE_COORDINATOR,
                () -> delegate.acquireCoordinator(groupId, owner, now, ttl, sessionTimeout));
    }

    @Override
    public void releaseCoordinator(CoordinatorLease lease, Instant now) {
        run(MetadataOperation.RELEASE_COORDINATOR, () -> delegate.releaseCoordinator(lease, now));
    }

    @Override
    public boolean recordMembers(CoordinatorLease lease, GroupMembership members) {
        return call(MetadataOperation.RECORD_MEMBERS, () -> delegate.recordMembers(lease, members));
    }

    @Override
    public Optional<GroupMembership> recordedMembers(CoordinatorLease lease) {
        return call(MetadataOperation.RECORDED_MEMBERS, () -> delegate.recordedMembers(lease));
    }

    @Override
    public int expireCoordinators(Instant endedBefore, Instant now, int max) {
        return call(MetadataOperation.EXPIRE_COORDINATORS, () -> delegate.expireCoordinators(endedBefore, now, max));
    }

    @Override
    public int expireLeases(Instant endedBefore, int max) {
        return call(MetadataOperation.EXPIRE_LEASES, () -> delegate.expireLeases(endedBefore, max));
    }

    @Override
    public List<StoredObject> smallObjects(long sizeBelowBytes, Instant registeredBefore, int max) {
        return call(
                MetadataOperation.SMALL_OBJECTS, () -> delegate.smallObjects(sizeBelowBytes, registeredBefore, max));
    }

    @Override
    public List<BatchCoordinate> batchesIn(Collection<ObjectKey> objects) {
        return call(MetadataOperation.BATCHES_IN, () -> delegate.batchesIn(objects));
    }

    @Override
    public RewriteOutcome rewrite(ObjectRewrite rewrite, Instant deleteAfter) {
        return call(MetadataOperation.REWRITE, () -> delegate.rewrite(rewrite, deleteAfter));
    }

    @Override
    public int scheduleUnreferenced(Instant registeredBefore, Instant now, Instant deleteAfter) {
        return call(
                MetadataOperation.SCHEDULE_UNREFERENCED,
                () -> delegate.scheduleUnreferenced(registeredBefore, now, deleteAfter));
    }

    @Override
    public List<ObjectDeletion> dueDeletions(Instant now, int max) {
        return call(MetadataOperation.DUE_DELETIONS, () -> delegate.dueDeletions(now, max));
    }

    @Override
    public void forgetDeletions(Collection<ObjectKey> deleted) {
        run(MetadataOperation.FORGET_DELETIONS, () -> delegate.forgetDeletions(deleted));
    }

    @Override
    public Set<ObjectKey> unknownObjects(Collection<ObjectKey> keys) {
        return call(MetadataOperation.UNKNOWN_OBJECTS, () -> delegate.unknownObjects(keys));
    }

    @Override
    public StorageStats storageStats() {
        return call(MetadataOperation.STORAGE_STATS, () -> delegate.storageStats());
    }

    @Override
    public List<ReferenceMismatch> referenceMismatches() {
        return call(MetadataOperation.REFERENCE_MISMATCHES, () -> delegate.referenceMismatches());
    }

    @Override
    public TransactionOutcome initProducer(String transactionalId, int timeoutMs, ProducerEpoch expected, Instant now) {
        return call(
                MetadataOperation.INIT_PRODUCER,
                () -> delegate.initProducer(transactionalId, timeoutMs, expected, now));
    }

    @Override
    public TransactionOutcome addPartitions(
            String transactionalId, ProducerEpoch producer, Collection<TopicPartition> partitions, Instant now) {
        return call(
                MetadataOperation.ADD_PARTITIONS,
                () -> delegate.addPartitions(transactionalId, producer, partitions, now));
    }

    @Override
    public TransactionOutcome addOffsets(String transactionalId, ProducerEpoch producer, String groupId, Instant now) {
        return call(MetadataOperation.ADD_OFFSETS, () -> delegate.addOffsets(transactionalId, producer, groupId, now));
    }

    @Override
    public TransactionOutcome commitPendingOffsets(
            String transactionalId,
            ProducerEpoch producer,
            CoordinatorLease coordinator,
            Map<TopicPartition, CommittedOffset> offsets,
            Instant now) {
        return call(
                MetadataOperation.COMMIT_PENDING_OFFSETS,
                () -> delegate.commitPendingOffsets(transactionalId, producer, coordinator, offsets, now));
    }

    @Override
    public TransactionOutcome endTransaction(
            String transactionalId, ProducerEpoch producer, boolean commit, boolean bumpEpoch, Instant now) {
        return call(
                MetadataOperation.END_TRANSACTION,
                () -> delegate.endTransaction(transactionalId, producer, commit, bumpEpoch, now));
    }

    @Override
    public TransactionOutcome abortExpired(
            String transactionalId, ProducerEpoch producer, long startedAtMs, Instant now) {
        return call(
                MetadataOperation.ABORT_EXPIRED,
                () -> delegate.abortExpired(transactionalId, producer, startedAtMs, now));
    }

    @Override
    public TransactionOutcome writeMarker(
            TopicPartition partition, ProducerEpoch producer, boolean commit, int coordinatorEpoch, Instant now) {
        return call(
                MetadataOperation.WRITE_MARKER,
                () -> delegate.writeMarker(partition, producer, commit, coordinatorEpoch, now));
    }

    @Override
    public Optional<TransactionDescription> transaction(String transactionalId) {
        return call(MetadataOperation.TRANSACTION, () -> delegate.transaction(transactionalId));
    }

    @Override
    public List<TransactionDescription> transactions() {
        return call(MetadataOperation.TRANSACTIONS, () -> delegate.transactions());
    }

    @Override
    public List<OpenTransaction> openTransactions() {
        return call(MetadataOperation.OPEN_TRANSACTIONS, () -> delegate.openTransactions());
    }

    @Override
    public int expireTransactionalIds(Instant idleBefore) {
        return call(MetadataOperation.EXPIRE_TRANSACTIONAL_IDS, () -> delegate.expireTransactionalIds(idleBefore));
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public boolean embedded() {
        return delegate.embedded();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
