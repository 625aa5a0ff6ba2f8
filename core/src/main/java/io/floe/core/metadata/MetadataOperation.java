package io.floe.core.metadata;

import static io.floe.core.metadata.OperationKind.FENCED_WRITE;
import static io.floe.core.metadata.OperationKind.IDEMPOTENT_WRITE;
import static io.floe.core.metadata.OperationKind.READ;

/**
 * One constant per method of the metadata roles: the role that declares it, its name for logs and its
 * {@link OperationKind}. {@link ForwardingMetadataStore} passes each call through its hook with the
 * constant, so decorators decide by kind, never by a method's name; a method added to a role does not
 * compile in the forwarding store until its constant is declared here. Overloads have a constant each.
 */
public enum MetadataOperation {

    // TopicMetadata
    CREATE_TOPIC(TopicMetadata.class, "createTopic", FENCED_WRITE),
    DELETE_TOPIC(TopicMetadata.class, "deleteTopic", FENCED_WRITE),
    CREATE_PARTITIONS(TopicMetadata.class, "createPartitions", FENCED_WRITE),
    SET_TOPIC_CONFIGS(TopicMetadata.class, "setTopicConfigs", IDEMPOTENT_WRITE),
    TOPIC(TopicMetadata.class, "topic", READ),
    TOPICS(TopicMetadata.class, "topics", READ),

    // LogAppends
    ALLOCATE_PRODUCER_ID(LogAppends.class, "allocateProducerId", IDEMPOTENT_WRITE),
    REGISTER_UPLOAD(LogAppends.class, "registerUpload", FENCED_WRITE),
    REGISTER_UPLOADS(LogAppends.class, "registerUploads", FENCED_WRITE),
    COMMIT(LogAppends.class, "commit", FENCED_WRITE),

    // LogReads
    OFFSETS(LogReads.class, "offsets", READ),
    BATCHES(LogReads.class, "batches", READ),
    BATCHES_OF_QUERIES(LogReads.class, "batches", READ),
    ENTRIES(LogReads.class, "entries", READ),
    ABORTED_TRANSACTIONS(LogReads.class, "abortedTransactions", READ),
    FIRST_BATCH_AT_OR_AFTER(LogReads.class, "firstBatchAtOrAfter", READ),
    BATCH_WITH_MAX_TIMESTAMP(LogReads.class, "batchWithMaxTimestamp", READ),
    LOG_REWRITES(LogReads.class, "logRewrites", READ),
    PARTITION_SIZES(LogReads.class, "partitionSizes", READ),
    PRODUCERS(LogReads.class, "producers", READ),
    UNSTABLE_LOGS(LogReads.class, "unstableLogs", READ),

    // LogRetention
    DELETE_RECORDS(LogRetention.class, "deleteRecords", IDEMPOTENT_WRITE),
    TRUNCATE_LOG(LogRetention.class, "truncateLog", IDEMPOTENT_WRITE),
    HOLD_RETENTION(LogRetention.class, "holdRetention", IDEMPOTENT_WRITE),
    RELEASE_RETENTION(LogRetention.class, "releaseRetention", IDEMPOTENT_WRITE),
    RETENTION_HOLDS(LogRetention.class, "retentionHolds", READ),
    EXPIRE_PRODUCERS(LogRetention.class, "expireProducers", IDEMPOTENT_WRITE),
    CLEAN_MARKERS(LogRetention.class, "cleanMarkers", IDEMPOTENT_WRITE),
    ACTIVE_SEGMENT(LogRetention.class, "activeSegment", READ),
    ROLL_SEGMENT(LogRetention.class, "rollSegment", IDEMPOTENT_WRITE),

    // ConsumerOffsets
    COMMIT_OFFSETS(ConsumerOffsets.class, "commitOffsets", IDEMPOTENT_WRITE),
    COMMIT_OFFSETS_FENCED(ConsumerOffsets.class, "commitOffsets", FENCED_WRITE),
    COMMITTED_OFFSETS(ConsumerOffsets.class, "committedOffsets", READ),
    FETCH_OFFSETS(ConsumerOffsets.class, "fetchOffsets", READ),
    DELETE_OFFSETS(ConsumerOffsets.class, "deleteOffsets", FENCED_WRITE),
    DELETE_GROUP_OFFSETS(ConsumerOffsets.class, "deleteGroupOffsets", FENCED_WRITE),
    DELETE_TOPIC_OFFSETS(ConsumerOffsets.class, "deleteTopicOffsets", IDEMPOTENT_WRITE),
    EXPIRE_OFFSETS(ConsumerOffsets.class, "expireOffsets", IDEMPOTENT_WRITE),
    OFFSET_GROUPS(ConsumerOffsets.class, "offsetGroups", READ),
    GROUPS_COMMITTED_BEFORE(ConsumerOffsets.class, "groupsCommittedBefore", READ),

    // AgentMembership
    HEARTBEAT_AGENT(AgentMembership.class, "heartbeatAgent", IDEMPOTENT_WRITE),
    HEARTBEAT_AGENT_RENEWING(AgentMembership.class, "heartbeatAgent", IDEMPOTENT_WRITE),
    LIVE_AGENTS(AgentMembership.class, "liveAgents", READ),
    REMOVE_AGENT(AgentMembership.class, "removeAgent", IDEMPOTENT_WRITE),
    EXPIRE_AGENTS(AgentMembership.class, "expireAgents", IDEMPOTENT_WRITE),
    ALLOCATE_NODE_ID(AgentMembership.class, "allocateNodeId", IDEMPOTENT_WRITE),
    CLAIM_NODE_ID(AgentMembership.class, "claimNodeId", IDEMPOTENT_WRITE),
    RELEASE_NODE_ID(AgentMembership.class, "releaseNodeId", IDEMPOTENT_WRITE),

    // Leases
    ACQUIRE_LEASE(Leases.class, "acquireLease", IDEMPOTENT_WRITE),
    RELEASE_LEASE(Leases.class, "releaseLease", IDEMPOTENT_WRITE),
    ACQUIRE_COORDINATOR(Leases.class, "acquireCoordinator", IDEMPOTENT_WRITE),
    RELEASE_COORDINATOR(Leases.class, "releaseCoordinator", IDEMPOTENT_WRITE),
    RECORD_MEMBERS(Leases.class, "recordMembers", FENCED_WRITE),
    RECORDED_MEMBERS(Leases.class, "recordedMembers", READ),
    EXPIRE_COORDINATORS(Leases.class, "expireCoordinators", IDEMPOTENT_WRITE),
    EXPIRE_LEASES(Leases.class, "expireLeases", IDEMPOTENT_WRITE),

    // Transactions
    INIT_PRODUCER(Transactions.class, "initProducer", FENCED_WRITE),
    ADD_PARTITIONS(Transactions.class, "addPartitions", FENCED_WRITE),
    ADD_OFFSETS(Transactions.class, "addOffsets", FENCED_WRITE),
    COMMIT_PENDING_OFFSETS(Transactions.class, "commitPendingOffsets", FENCED_WRITE),
    END_TRANSACTION(Transactions.class, "endTransaction", FENCED_WRITE),
    ABORT_EXPIRED(Transactions.class, "abortExpired", FENCED_WRITE),
    WRITE_MARKER(Transactions.class, "writeMarker", FENCED_WRITE),
    TRANSACTION(Transactions.class, "transaction", READ),
    TRANSACTIONS(Transactions.class, "transactions", READ),
    OPEN_TRANSACTIONS(Transactions.class, "openTransactions", READ),
    EXPIRE_TRANSACTIONAL_IDS(Transactions.class, "expireTransactionalIds", IDEMPOTENT_WRITE),

    // ObjectLifecycle
    SMALL_OBJECTS(ObjectLifecycle.class, "smallObjects", READ),
    BATCHES_IN(ObjectLifecycle.class, "batchesIn", READ),
    REWRITE(ObjectLifecycle.class, "rewrite", FENCED_WRITE),
    SCHEDULE_UNREFERENCED(ObjectLifecycle.class, "scheduleUnreferenced", IDEMPOTENT_WRITE),
    DUE_DELETIONS(ObjectLifecycle.class, "dueDeletions", READ),
    FORGET_DELETIONS(ObjectLifecycle.class, "forgetDeletions", IDEMPOTENT_WRITE),
    UNKNOWN_OBJECTS(ObjectLifecycle.class, "unknownObjects", READ),
    STORAGE_STATS(ObjectLifecycle.class, "storageStats", READ),
    REFERENCE_MISMATCHES(ObjectLifecycle.class, "referenceMismatches", READ);

    private final Class<?> role;
    private final String method;
    private final OperationKind kind;

    MetadataOperation(Class<?> role, String method, OperationKind kind) {
        this.role = role;
        this.method = method;
        this.kind = kind;
    }

    /** The role interface that declares the method. */
    public Class<?> role() {
        return role;
    }

    /** The method's name, for logs (overloads share it). */
    public String method() {
        return method;
    }

    public OperationKind kind() {
        return kind;
    }

    @Override
    public String toString() {
        return method;
    }
}
