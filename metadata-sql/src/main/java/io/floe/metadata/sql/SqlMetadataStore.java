package io.floe.metadata.sql;

import io.floe.core.concurrency.Concurrency;
import io.floe.core.group.CommittedOffset;
import io.floe.core.group.FetchedOffsets;
import io.floe.core.group.GroupMembership;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.ActiveProducer;
import io.floe.core.metadata.AgentRegistration;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.MarkerCleaning;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.NodeIdClaim;
import io.floe.core.metadata.NodeIdLease;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.metadata.ObjectDeletion;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.ReferenceMismatch;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.metadata.StorageStats;
import io.floe.core.metadata.StoredObject;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.topic.UnknownTopicException;
import io.floe.core.transaction.OpenTransaction;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.core.transaction.TransactionState;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link MetadataStore} on a SQL database. On embedded SQLite, writes go through one connection,
 * one at a time (which is what makes offsets dense); on PostgreSQL, shared by many agents, writes
 * run concurrently and row locks serialize those that touch the same partitions. Reads see every
 * write that returned before they began. See {@link MetadataStore} for the contract.
 */
public final class SqlMetadataStore implements MetadataStore {

    private static final Logger LOGGER = LoggerFactory.getLogger(SqlMetadataStore.class);

    private final Dialect dialect;
    private final Database database;
    private final TopicCatalog topics;
    private final BatchIndex batchIndex = new BatchIndex();
    private final CommitTransaction commits;
    private final ProducerIds producerIds;
    private final GroupOffsets groupOffsets;
    private final LogAdministration logAdministration;
    private final Membership membership;
    private final JobLeases leases;
    private final ObjectRewrites rewrites;
    private final LogCleanup cleanup;
    private final RetentionHolds retentionHolds;
    private final LogRewritesCounter logRewrites;
    private final Clock clock;
    private final NodeIds nodeIds;
    private final CoordinatorLeases coordinators;
    private final TransactionOperations transactions;

    private SqlMetadataStore(Dialect dialect, Database database, Clock clock) {
        this.dialect = dialect;
        this.clock = clock;
        this.database = database;
        this.logRewrites = new LogRewritesCounter(database);
        this.topics = new TopicCatalog(clock, dialect);
        this.commits = new CommitTransaction(dialect, clock);
        this.producerIds = new ProducerIds(database);
        this.groupOffsets = new GroupOffsets(dialect);
        this.logAdministration = new LogAdministration(dialect);
        this.membership = new Membership(dialect);
        this.leases = new JobLeases(dialect);
        this.rewrites = new ObjectRewrites(dialect);
        this.cleanup = new LogCleanup(dialect);
        this.retentionHolds = new RetentionHolds(dialect);
        this.nodeIds = new NodeIds(leases);
        this.coordinators = new CoordinatorLeases(dialect);
        this.transactions = new TransactionOperations(dialect, groupOffsets, coordinators);
    }

    /** Opens (creating it if needed) the embedded SQLite store at {@code dbFile}, using the system clock. */
    public static SqlMetadataStore openSqlite(Path dbFile) {
        return openSqlite(dbFile, Concurrency.threads().clock());
    }

    /**
     * Opens (creating it if needed) the embedded SQLite store at {@code dbFile} and holds
     * {@code <dbFile>.lock} until {@link #close()}: a second store on the same file fails with a
     * non-retriable {@link MetadataStoreException}.
     */
    public static SqlMetadataStore openSqlite(Path dbFile, Clock clock) {
        Objects.requireNonNull(dbFile, "dbFile");
        SqliteDialect dialect = SqliteDialect.open(dbFile);
        return open(dialect, () -> SingleWriterDatabase.open(dialect), clock);
    }

    /**
     * Opens the PostgreSQL store that {@code url} names, {@code postgresql://USER:PASSWORD@HOST:PORT/DATABASE}
     * or {@code jdbc:postgresql://...}, with the default pool size and timeouts; see
     * {@link #openPostgres(PostgresConfig, Clock)}.
     */
    public static SqlMetadataStore openPostgres(String url, Clock clock) {
        return openPostgres(PostgresConfig.parse(url), clock);
    }

    /**
     * Opens a store on a PostgreSQL database that several agents may share, creating or upgrading
     * its schema (stores starting at once take turns). Fails with a {@link MetadataStoreException}
     * carrying the server's reason when the database is unreachable or refuses the login.
     */
    public static SqlMetadataStore openPostgres(PostgresConfig config, Clock clock) {
        Objects.requireNonNull(config, "config");
        PostgresDialect dialect = new PostgresDialect(config);
        return open(dialect, () -> PooledDatabase.open(config, dialect), clock);
    }

    /** Opens a dialect's connections. */
    @FunctionalInterface
    private interface DatabaseOpener {
        Database open() throws SQLException;
    }

    /** Opens connections and migrates; on any failure releases everything, the file lock included. */
    private static SqlMetadataStore open(Dialect dialect, DatabaseOpener opener, Clock clock) {
        Database database;
        try {
            database = opener.open();
        } catch (SQLException e) {
            dialect.close();
            throw failure(dialect, "open", e);
        } catch (RuntimeException e) {
            dialect.close();
            throw e;
        }
        try {
            int found = Migrations.apply(database, dialect, clock, dialect.describe());
            if (database.exclusive()) {
                database.write(connection -> {
                    PredecessorLeases.end(connection, clock.instant(), dialect.describe());
                    return null;
                });
            }
            LOGGER.info(
                    "opened metadata store store={} schemaVersion={} previousVersion={}",
                    dialect.describe(),
                    Migrations.LATEST,
                    found);
            return new SqlMetadataStore(dialect, database, clock);
        } catch (SQLException e) {
            database.close();
            throw failure(dialect, "migrate", e);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    // ----- topics

    @Override
    public Topic createTopic(NewTopic topic) {
        return write("create topic " + topic.name(), connection -> topics.create(connection, topic));
    }

    @Override
    public void deleteTopic(String name) {
        rewritingLog("delete topic " + name, connection -> {
            topics.delete(connection, name);
            return null;
        });
        LOGGER.info("deleted topic store={} topic={}", dialect.describe(), name);
    }

    @Override
    public Topic createPartitions(String name, int totalCount) {
        return write(
                "create partitions of topic " + name,
                connection -> topics.createPartitions(connection, name, totalCount));
    }

    @Override
    public Topic setTopicConfigs(String name, Map<String, String> configs) {
        Map<String, String> copy = Map.copyOf(configs);
        return write("set configs of topic " + name, connection -> topics.setConfigs(connection, name, copy));
    }

    @Override
    public Optional<Topic> topic(String name) {
        return read("read topic " + name, connection -> topics.find(connection, name));
    }

    @Override
    public List<Topic> topics() {
        return read("list topics", topics::all);
    }

    // ----- producers

    @Override
    public long allocateProducerId() {
        try {
            return producerIds.allocate();
        } catch (SQLException e) {
            throw failure(dialect, "allocate a producer id", e);
        }
    }

    // ----- produce path

    @Override
    public void registerUpload(ObjectKey object, String agentId, Instant registeredAt) {
        registerUploads(List.of(object), agentId, registeredAt);
    }

    @Override
    public void registerUploads(List<ObjectKey> objects, String agentId, Instant registeredAt) {
        Objects.requireNonNull(objects, "objects");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(registeredAt, "registeredAt");
        if (objects.isEmpty()) {
            return;
        }
        write("register " + objects.size() + " uploads starting " + objects.get(0), connection -> {
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO objects"
                    + " (object_key, agent_id, registered_at, state, ref_count) VALUES (?, ?, ?, ?, 0)")) {
                for (ObjectKey object : objects) {
                    insert.setString(1, object.value());
                    insert.setString(2, agentId);
                    insert.setLong(3, registeredAt.toEpochMilli());
                    insert.setString(4, CommitTransaction.REGISTERED);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            return null;
        });
    }

    /**
     * Any failure is {@link CommitOutcome.Unknown}: after a failed COMMIT statement the transaction
     * may or may not be durable, and callers must treat every failure the same way (keep the object,
     * answer producers with a retriable error).
     */
    @Override
    public CommitOutcome commit(ObjectCommit commit) {
        CommitOutcome outcome;
        try {
            outcome = database.write(connection -> commits.apply(connection, commit));
        } catch (SQLException | MetadataStoreException e) {
            LOGGER.warn(
                    "commit outcome unknown store={} object={} batches={}",
                    dialect.describe(),
                    commit.object(),
                    commit.batches().size(),
                    e);
            return new CommitOutcome.Unknown(e);
        } catch (RuntimeException e) {
            LOGGER.error(
                    "commit failed unexpectedly, outcome unknown store={} object={} batches={}",
                    dialect.describe(),
                    commit.object(),
                    commit.batches().size(),
                    e);
            return new CommitOutcome.Unknown(e);
        }
        if (outcome instanceof CommitOutcome.Rejected rejected) {
            LOGGER.warn(
                    "commit rejected store={} object={} reason={}",
                    dialect.describe(),
                    commit.object(),
                    rejected.reason());
        } else {
            LOGGER.debug(
                    "committed store={} object={} batches={}",
                    dialect.describe(),
                    commit.object(),
                    commit.batches().size());
        }
        return outcome;
    }

    // ----- read path

    @Override
    public LogOffsets offsets(TopicPartition topicPartition) {
        return read("read offsets of " + topicPartition, connection -> batchIndex.offsets(connection, topicPartition));
    }

    @Override
    public List<BatchCoordinate> batches(TopicPartition topicPartition, long fromOffset, int maxBatches) {
        if (maxBatches < 0) {
            throw new IllegalArgumentException("maxBatches must be >= 0, got " + maxBatches);
        }
        if (maxBatches == 0) {
            return List.of();
        }
        return read(
                "read batches of " + topicPartition,
                connection -> batchIndex.batches(connection, topicPartition, fromOffset, maxBatches));
    }

    /** All partitions' rows in one read transaction: one pool borrow and one snapshot for a whole fetch. */
    @Override
    public List<List<BatchCoordinate>> batches(List<BatchesQuery> queries) {
        if (queries.isEmpty()) {
            return List.of();
        }
        return read("read batches of " + queries.size() + " partitions", connection -> {
            List<List<BatchCoordinate>> answers = new ArrayList<>(queries.size());
            for (BatchesQuery query : queries) {
                answers.add(
                        query.maxBatches() == 0
                                ? List.of()
                                : batchIndex.batches(
                                        connection, query.topicPartition(), query.fromOffset(), query.maxBatches()));
            }
            return answers;
        });
    }

    /** Like {@link #batches(List)}: every partition's entries in one read transaction. */
    @Override
    public List<List<LogEntry>> entries(List<BatchesQuery> queries) {
        if (queries.isEmpty()) {
            return List.of();
        }
        return read("read log entries of " + queries.size() + " partitions", connection -> {
            List<List<LogEntry>> answers = new ArrayList<>(queries.size());
            for (BatchesQuery query : queries) {
                answers.add(
                        query.maxBatches() == 0
                                ? List.of()
                                : batchIndex.entries(
                                        connection, query.topicPartition(), query.fromOffset(), query.maxBatches()));
            }
            return answers;
        });
    }

    @Override
    public List<AbortedTransaction> abortedTransactions(TopicPartition topicPartition, long fromOffset, long toOffset) {
        Objects.requireNonNull(topicPartition, "topicPartition");
        return read(
                "read aborted transactions of " + topicPartition,
                connection -> batchIndex.aborted(connection, topicPartition, fromOffset, toOffset));
    }

    // ----- transactions

    @Override
    public TransactionOutcome initProducer(String transactionalId, int timeoutMs, ProducerEpoch expected, Instant now) {
        Objects.requireNonNull(transactionalId, "transactionalId");
        return transactionWrite(
                "init producer of transactional id " + transactionalId,
                connection -> transactions.initProducer(
                        connection, transactionalId, timeoutMs, expected, now.toEpochMilli()));
    }

    @Override
    public TransactionOutcome addPartitions(
            String transactionalId, ProducerEpoch producer, Collection<TopicPartition> partitions, Instant now) {
        List<TopicPartition> copy = List.copyOf(partitions);
        return transactionWrite(
                "add " + copy.size() + " partitions to transaction " + transactionalId,
                connection ->
                        transactions.addPartitions(connection, transactionalId, producer, copy, now.toEpochMilli()));
    }

    @Override
    public TransactionOutcome addOffsets(String transactionalId, ProducerEpoch producer, String groupId, Instant now) {
        Objects.requireNonNull(groupId, "groupId");
        return transactionWrite(
                "add offsets of group " + groupId + " to transaction " + transactionalId,
                connection -> transactions.addOffsets(connection, transactionalId, producer, now.toEpochMilli()));
    }

    @Override
    public TransactionOutcome commitPendingOffsets(
            String transactionalId,
            ProducerEpoch producer,
            CoordinatorLease coordinator,
            Map<TopicPartition, CommittedOffset> offsets,
            Instant now) {
        Objects.requireNonNull(coordinator, "coordinator");
        Map<TopicPartition, CommittedOffset> copy = Map.copyOf(offsets);
        return transactionWrite(
                "commit " + copy.size() + " offsets of group " + coordinator.groupId() + " at coordinator epoch "
                        + coordinator.epoch() + " in transaction " + transactionalId,
                connection -> transactions.commitPendingOffsets(
                        connection, dialect, transactionalId, producer, coordinator, copy, now.toEpochMilli()));
    }

    @Override
    public TransactionOutcome endTransaction(
            String transactionalId, ProducerEpoch producer, boolean commit, boolean bumpEpoch, Instant now) {
        return transactionWrite(
                (commit ? "commit" : "abort") + " transaction " + transactionalId + " of producer " + producer,
                connection -> transactions.endTransaction(
                        connection, transactionalId, producer, commit, bumpEpoch, now.toEpochMilli()));
    }

    @Override
    public TransactionOutcome abortExpired(
            String transactionalId, ProducerEpoch producer, long startedAtMs, Instant now) {
        return transactionWrite(
                "abort expired transaction " + transactionalId,
                connection -> transactions.abortExpired(
                        connection, transactionalId, producer, startedAtMs, now.toEpochMilli()));
    }

    @Override
    public TransactionOutcome writeMarker(
            TopicPartition partition, ProducerEpoch producer, boolean commit, int coordinatorEpoch, Instant now) {
        Objects.requireNonNull(partition, "partition");
        return transactionWrite(
                "write " + (commit ? "commit" : "abort") + " marker of producer " + producer + " to " + partition,
                connection -> transactions.writeMarker(connection, partition, producer, commit, now.toEpochMilli()));
    }

    @Override
    public Optional<TransactionDescription> transaction(String transactionalId) {
        Objects.requireNonNull(transactionalId, "transactionalId");
        return read("read transactional id " + transactionalId, connection -> {
            Optional<TransactionRow> row = transactions.rows().find(connection, transactionalId);
            return row.isEmpty()
                    ? Optional.<TransactionDescription>empty()
                    : Optional.of(transactions.rows().describe(connection, row.get()));
        });
    }

    @Override
    public List<TransactionDescription> transactions() {
        return read("list transactional ids", connection -> describeAll(connection, ""));
    }

    @Override
    public List<OpenTransaction> openTransactions() {
        return read("list open transactions", transactions.rows()::open);
    }

    private List<TransactionDescription> describeAll(Connection connection, String where, long... parameters)
            throws SQLException {
        List<TransactionDescription> described = new ArrayList<>();
        for (TransactionRow row : transactions.rows().all(connection, where, parameters)) {
            described.add(transactions.rows().describe(connection, row));
        }
        return described;
    }

    @Override
    public int expireTransactionalIds(Instant idleBefore) {
        Objects.requireNonNull(idleBefore, "idleBefore");
        int expired = write("expire transactional ids idle since " + idleBefore, connection -> {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM transactions"
                    + " WHERE updated_at < ? AND state <> '" + TransactionState.ONGOING.name() + "'")) {
                delete.setLong(1, idleBefore.toEpochMilli());
                return delete.executeUpdate();
            }
        });
        if (expired > 0) {
            LOGGER.info(
                    "expired transactional ids store={} ids={} idleBefore={}", dialect.describe(), expired, idleBefore);
        }
        return expired;
    }

    /**
     * A transaction write: logged like other writes when it fails; its markers (if any) are logged at
     * debug level, refusals at info, since a fenced zombie is routine.
     */
    private TransactionOutcome transactionWrite(String action, SqlWork<TransactionOutcome> work) {
        TransactionOutcome outcome = write(action, work);
        if (outcome instanceof TransactionOutcome.Refused refused) {
            LOGGER.info(
                    "transaction operation refused store={} action={} error={} reason={}",
                    dialect.describe(),
                    action,
                    refused.error(),
                    refused.message());
        } else if (outcome instanceof TransactionOutcome.Done done
                && !done.markers().isEmpty()) {
            LOGGER.debug(
                    "transaction markers written store={} action={} markers={}",
                    dialect.describe(),
                    action,
                    done.markers().size());
        }
        return outcome;
    }

    @Override
    public Optional<BatchCoordinate> firstBatchAtOrAfter(TopicPartition topicPartition, long timestamp) {
        return read(
                "find timestamp " + timestamp + " in " + topicPartition,
                connection -> batchIndex.firstAtOrAfter(connection, topicPartition, timestamp));
    }

    @Override
    public Optional<BatchCoordinate> batchWithMaxTimestamp(TopicPartition topicPartition) {
        return read(
                "find max timestamp in " + topicPartition,
                connection -> batchIndex.withMaxTimestamp(connection, topicPartition));
    }

    @Override
    public long logRewrites() {
        try {
            return logRewrites.value();
        } catch (SQLException e) {
            throw failure(dialect, "read the log rewrites counter", e);
        }
    }

    // ----- log administration

    @Override
    public long deleteRecords(TopicPartition topicPartition, long beforeOffset) {
        Objects.requireNonNull(topicPartition, "topicPartition");
        long logStart = rewritingLog(
                "delete records of " + topicPartition + " before " + beforeOffset,
                connection -> logAdministration.deleteRecords(connection, topicPartition, beforeOffset));
        LOGGER.info(
                "moved log start store={} partition={} requested={} logStart={}",
                dialect.describe(),
                topicPartition,
                beforeOffset,
                logStart);
        return logStart;
    }

    @Override
    public List<ActiveProducer> producers(TopicPartition topicPartition) {
        Objects.requireNonNull(topicPartition, "topicPartition");
        return read(
                "read producers of " + topicPartition,
                connection -> logAdministration.producers(connection, topicPartition));
    }

    @Override
    public Map<TopicPartition, LogOffsets> unstableLogs() {
        return read("read the partitions with open transactions", batchIndex::unstableLogs);
    }

    @Override
    public Map<Integer, Long> partitionSizes(String topic) {
        Objects.requireNonNull(topic, "topic");
        return read(
                "read partition sizes of topic " + topic,
                connection -> logAdministration.partitionSizes(connection, topic));
    }

    @Override
    public int expireProducers(Instant writtenBefore) {
        Objects.requireNonNull(writtenBefore, "writtenBefore");
        int expired = write(
                "expire producers written before " + writtenBefore,
                connection -> ProducerExpiry.expire(connection, writtenBefore, clock.instant()));
        if (expired > 0) {
            LOGGER.info(
                    "expired producer state store={} rows={} writtenBefore={}",
                    dialect.describe(),
                    expired,
                    writtenBefore);
        }
        return expired;
    }

    // ----- consumer group offsets

    @Override
    public void commitOffsets(String groupId, Map<TopicPartition, CommittedOffset> offsets) {
        Objects.requireNonNull(groupId, "groupId");
        Map<TopicPartition, CommittedOffset> copy = Map.copyOf(offsets);
        if (copy.isEmpty()) {
            return;
        }
        write("commit " + copy.size() + " offsets of group " + groupId, connection -> {
            groupOffsets.commit(connection, groupId, copy);
            return null;
        });
    }

    @Override
    public Map<TopicPartition, CommittedOffset> committedOffsets(String groupId) {
        Objects.requireNonNull(groupId, "groupId");
        return read("read offsets of group " + groupId, connection -> groupOffsets.ofGroup(connection, groupId));
    }

    /**
     * One read transaction, a snapshot on both dialects. The pending partitions are read first all the
     * same: an end of transaction that committed between the two statements then shows as its new
     * committed offsets, never as the old ones without their pending mark.
     */
    @Override
    public FetchedOffsets fetchOffsets(String groupId) {
        Objects.requireNonNull(groupId, "groupId");
        return read("read committed and pending offsets of group " + groupId, connection -> {
            Set<TopicPartition> pending = groupOffsets.pending(connection, groupId);
            return new FetchedOffsets(groupOffsets.ofGroup(connection, groupId), pending);
        });
    }

    @Override
    public OptionalInt deleteOffsets(CoordinatorLease coordinator, Collection<TopicPartition> partitions) {
        Objects.requireNonNull(coordinator, "coordinator");
        List<TopicPartition> copy = List.copyOf(partitions);
        return write(
                "delete " + copy.size() + " offsets of group " + coordinator.groupId() + " at coordinator epoch "
                        + coordinator.epoch(),
                connection -> coordinators.holds(connection, coordinator)
                        ? OptionalInt.of(groupOffsets.delete(connection, coordinator.groupId(), copy))
                        : OptionalInt.empty());
    }

    @Override
    public OptionalInt deleteGroupOffsets(CoordinatorLease coordinator) {
        Objects.requireNonNull(coordinator, "coordinator");
        return write(
                "delete offsets of group " + coordinator.groupId() + " at coordinator epoch " + coordinator.epoch(),
                connection -> coordinators.holds(connection, coordinator)
                        ? OptionalInt.of(groupOffsets.deleteGroup(connection, coordinator.groupId()))
                        : OptionalInt.empty());
    }

    @Override
    public int deleteTopicOffsets(String topic) {
        Objects.requireNonNull(topic, "topic");
        return write(
                "delete group offsets of topic " + topic, connection -> groupOffsets.deleteTopic(connection, topic));
    }

    @Override
    public int expireOffsets(String groupId, Instant committedBefore, String coordinator, Instant now) {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(committedBefore, "committedBefore");
        Objects.requireNonNull(coordinator, "coordinator");
        return write(
                "expire offsets of group " + groupId,
                connection -> coordinators.othersMayHaveMembers(connection, groupId, coordinator, now)
                        ? 0
                        : groupOffsets.expire(connection, groupId, committedBefore));
    }

    @Override
    public List<String> offsetGroups() {
        return read("list groups with offsets", groupOffsets::groups);
    }

    @Override
    public List<String> groupsCommittedBefore(Instant committedBefore) {
        Objects.requireNonNull(committedBefore, "committedBefore");
        return read(
                "list groups with offsets committed before " + committedBefore,
                connection -> groupOffsets.groupsCommittedBefore(connection, committedBefore));
    }

    // ----- membership

    @Override
    public void heartbeatAgent(AgentRegistration registration) {
        Objects.requireNonNull(registration, "registration");
        write("record heartbeat of agent " + registration.agentId(), connection -> {
            membership.heartbeat(connection, registration);
            return null;
        });
    }

    @Override
    public List<AgentRegistration> liveAgents(Instant heartbeatAfter) {
        Objects.requireNonNull(heartbeatAfter, "heartbeatAfter");
        return read("list live agents", connection -> membership.live(connection, heartbeatAfter));
    }

    @Override
    public boolean removeAgent(String agentId) {
        Objects.requireNonNull(agentId, "agentId");
        return write("remove agent " + agentId, connection -> membership.remove(connection, agentId));
    }

    @Override
    public int expireAgents(Instant heartbeatBefore, int max) {
        Objects.requireNonNull(heartbeatBefore, "heartbeatBefore");
        positiveLimit(max);
        int expired = write(
                "remove agents silent since " + heartbeatBefore,
                connection -> membership.expire(connection, heartbeatBefore, max));
        if (expired > 0) {
            LOGGER.info(
                    "removed agents silent since store={} agents={} heartbeatBefore={}",
                    dialect.describe(),
                    expired,
                    heartbeatBefore);
        }
        return expired;
    }

    // ----- node ids and coordinator leases

    @Override
    public NodeIdLease allocateNodeId(String agentId, Instant now, Duration ttl) {
        Objects.requireNonNull(agentId, "agentId");
        NodeIdLease lease = racingForANewRow(
                "allocate a node id for agent " + agentId,
                connection -> nodeIds.allocate(connection, agentId, now, ttl));
        LOGGER.info(
                "allocated node id store={} agentId={} nodeId={} epoch={}",
                dialect.describe(),
                agentId,
                lease.nodeId(),
                lease.epoch());
        return lease;
    }

    @Override
    public NodeIdClaim claimNodeId(int nodeId, String agentId, Instant now, Duration ttl) {
        Objects.requireNonNull(agentId, "agentId");
        if (nodeId < 0) {
            throw new IllegalArgumentException("node id must be >= 0, got " + nodeId);
        }
        return racingForANewRow(
                "claim node id " + nodeId + " for agent " + agentId,
                connection -> nodeIds.claim(connection, nodeId, agentId, now, ttl));
    }

    @Override
    public NodeIdClaim heartbeatAgent(AgentRegistration registration, Duration ttl) {
        Objects.requireNonNull(registration, "registration");
        return racingForANewRow("record heartbeat of agent " + registration.agentId(), connection -> {
            NodeIdClaim claim = nodeIds.claim(
                    connection, registration.nodeId(), registration.agentId(), registration.heartbeatAt(), ttl);
            if (claim instanceof NodeIdClaim.Granted) {
                membership.heartbeat(connection, registration);
            }
            return claim;
        });
    }

    @Override
    public void releaseNodeId(NodeIdLease lease) {
        write("release node id " + lease.nodeId() + " of agent " + lease.agentId(), connection -> {
            nodeIds.release(connection, lease);
            return null;
        });
    }

    @Override
    public Optional<CoordinatorLease> acquireCoordinator(
            String groupId, String owner, Instant now, Duration ttl, Duration sessionTimeout) {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(owner, "owner");
        return racingForANewRow(
                "take the coordinator lease of group " + groupId,
                connection -> coordinators.acquire(connection, groupId, owner, now, ttl, sessionTimeout));
    }

    @Override
    public void releaseCoordinator(CoordinatorLease lease, Instant now) {
        write("release the coordinator lease of group " + lease.groupId(), connection -> {
            coordinators.release(connection, lease, now);
            return null;
        });
    }

    @Override
    public boolean recordMembers(CoordinatorLease lease, GroupMembership members) {
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(members, "members");
        return write(
                "record " + members.members().size() + " members of group " + lease.groupId() + " at coordinator epoch "
                        + lease.epoch(),
                connection -> coordinators.record(connection, lease, members));
    }

    @Override
    public Optional<GroupMembership> recordedMembers(CoordinatorLease lease) {
        Objects.requireNonNull(lease, "lease");
        return read(
                "read the recorded members of group " + lease.groupId(),
                connection -> coordinators.recorded(connection, lease));
    }

    @Override
    public int expireCoordinators(Instant endedBefore, Instant now, int max) {
        Objects.requireNonNull(endedBefore, "endedBefore");
        Objects.requireNonNull(now, "now");
        positiveLimit(max);
        int expired = write(
                "forget coordinator leases ended before " + endedBefore,
                connection -> coordinators.expire(connection, endedBefore, now, max));
        if (expired > 0) {
            LOGGER.info(
                    "forgot group coordinator leases store={} leases={} endedBefore={}",
                    dialect.describe(),
                    expired,
                    endedBefore);
        }
        return expired;
    }

    @Override
    public int expireLeases(Instant endedBefore, int max) {
        Objects.requireNonNull(endedBefore, "endedBefore");
        positiveLimit(max);
        int expired = write(
                "forget job leases ended before " + endedBefore,
                connection -> leases.expire(connection, endedBefore, max));
        if (expired > 0) {
            LOGGER.info(
                    "forgot job leases store={} leases={} endedBefore={}", dialect.describe(), expired, endedBefore);
        }
        return expired;
    }

    private static void positiveLimit(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be >= 1, got " + max);
        }
    }

    @Override
    public boolean commitOffsets(CoordinatorLease coordinator, Map<TopicPartition, CommittedOffset> offsets) {
        Objects.requireNonNull(coordinator, "coordinator");
        Map<TopicPartition, CommittedOffset> copy = Map.copyOf(offsets);
        return write(
                "commit " + copy.size() + " offsets of group " + coordinator.groupId() + " at coordinator epoch "
                        + coordinator.epoch(),
                connection -> {
                    if (!coordinators.holds(connection, coordinator)) {
                        return false;
                    }
                    groupOffsets.commit(connection, coordinator.groupId(), copy);
                    return true;
                });
    }

    /** Stores racing to insert the same new lease row: each loser asks again, finding the winner's row. */
    private static final int NEW_ROW_ATTEMPTS = 8;

    /**
     * A write that may insert a lease row: on PostgreSQL two stores can both find no row and both
     * insert it; the loser fails on the primary key and, asked again, finds the winner's row (and an
     * allocation moves on to the next id, where it may race once more).
     */
    private <T> T racingForANewRow(String action, SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return database.write(work);
            } catch (SQLException e) {
                if (attempt >= NEW_ROW_ATTEMPTS || !dialect.uniqueViolation(e)) {
                    throw failure(dialect, action, e);
                }
                LOGGER.debug(
                        "{} lost a race for a new row (attempt {}), asking again: {}", action, attempt, e.getMessage());
            }
        }
    }

    // ----- maintenance

    /**
     * On PostgreSQL two agents can both find no row for a new job and both insert it; the loser fails
     * on the primary key and, asked once more, finds the winner's lease.
     */
    @Override
    public Optional<JobLease> acquireLease(String job, String owner, Instant now, Duration ttl) {
        try {
            return write(
                    "take the lease of job " + job, connection -> leases.acquire(connection, job, owner, now, ttl));
        } catch (MetadataStoreException lostTheRace) {
            LOGGER.debug("taking the lease of job {} failed once, asking again: {}", job, lostTheRace.getMessage());
            return write(
                    "take the lease of job " + job, connection -> leases.acquire(connection, job, owner, now, ttl));
        }
    }

    @Override
    public void releaseLease(JobLease lease) {
        write("release the lease of job " + lease.job(), connection -> {
            leases.release(connection, lease);
            return null;
        });
    }

    @Override
    public List<StoredObject> smallObjects(long sizeBelowBytes, Instant registeredBefore, int max) {
        return read(
                "list small objects",
                connection -> rewrites.smallObjects(connection, sizeBelowBytes, registeredBefore, max));
    }

    @Override
    public List<BatchCoordinate> batchesIn(Collection<ObjectKey> objects) {
        List<ObjectKey> copy = List.copyOf(objects);
        return copy.isEmpty()
                ? List.of()
                : read(
                        "read the batches of " + copy.size() + " objects",
                        connection -> rewrites.batchesIn(connection, copy));
    }

    /** Like {@link #commit}, any failure but a conflict with the plan is {@link RewriteOutcome.Unknown}. */
    @Override
    public RewriteOutcome rewrite(ObjectRewrite rewrite, Instant deleteAfter) {
        Objects.requireNonNull(rewrite, "rewrite");
        Objects.requireNonNull(deleteAfter, "deleteAfter");
        try {
            RewriteOutcome outcome;
            try {
                outcome = database.write(connection -> rewrites.rewrite(connection, rewrite, deleteAfter));
            } finally {
                logRewrites.invalidate();
            }
            LOGGER.debug(
                    "rewrote store={} output={} moved={} removed={}",
                    dialect.describe(),
                    rewrite.output(),
                    rewrite.moves().size(),
                    rewrite.removed().size());
            return outcome;
        } catch (ObjectRewrites.Conflict e) {
            LOGGER.info(
                    "rewrite rejected store={} output={} reason={}",
                    dialect.describe(),
                    rewrite.output(),
                    e.getMessage());
            return new RewriteOutcome.Rejected(e.getMessage());
        } catch (SQLException | RuntimeException e) {
            LOGGER.warn("rewrite outcome unknown store={} output={}", dialect.describe(), rewrite.output(), e);
            return new RewriteOutcome.Unknown(e);
        }
    }

    @Override
    public long truncateLog(TopicPartition topicPartition, long newLogStart, Instant deleteAfter) {
        return rewritingLog(
                "truncate " + topicPartition + " below " + newLogStart,
                connection -> cleanup.truncate(connection, topicPartition, newLogStart, deleteAfter));
    }

    @Override
    public MarkerCleaning cleanMarkers(
            TopicPartition topicPartition,
            long fromOffset,
            long toOffset,
            Instant now,
            Instant deleteHorizon,
            int maxMarkers) {
        Objects.requireNonNull(topicPartition, "topicPartition");
        long nowMs = now.toEpochMilli();
        long horizonMs = deleteHorizon.toEpochMilli();
        return rewritingLog(
                "clean transaction markers of " + topicPartition + " in [" + fromOffset + ", " + toOffset + ")",
                connection -> MarkerCleanup.clean(
                        connection, topicPartition, fromOffset, toOffset, nowMs, horizonMs, maxMarkers));
    }

    @Override
    public long activeSegment(TopicPartition topicPartition) {
        Objects.requireNonNull(topicPartition, "topicPartition");
        return read(
                        "read the active segment of " + topicPartition,
                        connection -> ActiveSegments.activeSegment(connection, topicPartition))
                .orElseThrow(() -> new UnknownTopicException(topicPartition.toString()));
    }

    @Override
    public long rollSegment(TopicPartition topicPartition, long baseOffset) {
        Objects.requireNonNull(topicPartition, "topicPartition");
        return write(
                        "roll the active segment of " + topicPartition + " to " + baseOffset,
                        connection -> ActiveSegments.rollSegment(connection, topicPartition, baseOffset))
                .orElseThrow(() -> new UnknownTopicException(topicPartition.toString()));
    }

    @Override
    public void holdRetention(String holder, String topic, Map<Integer, Long> offsets) {
        Objects.requireNonNull(holder, "holder");
        Map<Integer, Long> copy = Map.copyOf(offsets);
        write("hold retention of " + topic + " for " + holder, connection -> {
            retentionHolds.hold(connection, holder, topic, copy);
            return null;
        });
    }

    @Override
    public void releaseRetention(String holder, String topic) {
        write("release retention holds of " + topic + " for " + holder, connection -> {
            retentionHolds.release(connection, holder, topic);
            return null;
        });
    }

    @Override
    public Map<Integer, Long> retentionHolds(String topic) {
        return read("read retention holds of " + topic, connection -> retentionHolds.lowest(connection, topic));
    }

    @Override
    public int scheduleUnreferenced(Instant registeredBefore, Instant now, Instant deleteAfter) {
        return write(
                "schedule unreferenced objects",
                connection -> cleanup.scheduleUnreferenced(connection, registeredBefore, now, deleteAfter));
    }

    @Override
    public List<ObjectDeletion> dueDeletions(Instant now, int max) {
        return read("list due deletions", connection -> cleanup.dueDeletions(connection, now, max));
    }

    @Override
    public void forgetDeletions(Collection<ObjectKey> deleted) {
        List<ObjectKey> copy = List.copyOf(deleted);
        if (copy.isEmpty()) {
            return;
        }
        write("forget " + copy.size() + " deletions", connection -> {
            cleanup.forgetDeletions(connection, copy);
            return null;
        });
    }

    @Override
    public Set<ObjectKey> unknownObjects(Collection<ObjectKey> keys) {
        List<ObjectKey> copy = List.copyOf(keys);
        return copy.isEmpty()
                ? Set.of()
                : read("look up " + copy.size() + " objects", connection -> cleanup.unknownObjects(connection, copy));
    }

    @Override
    public StorageStats storageStats() {
        return read("read storage stats", cleanup::stats);
    }

    @Override
    public List<ReferenceMismatch> referenceMismatches() {
        return read("audit reference counts", cleanup::referenceMismatches);
    }

    @Override
    public String describe() {
        return dialect.describe();
    }

    @Override
    public boolean embedded() {
        return database.exclusive();
    }

    @Override
    public void close() {
        database.close();
        LOGGER.info("closed metadata store store={}", dialect.describe());
    }

    private <T> T write(String action, SqlWork<T> work) {
        try {
            return database.write(work);
        } catch (SQLException e) {
            throw failure(dialect, action, e);
        }
    }

    /** A write that may move the log rewrites counter: the counter is read afresh once it ended. */
    private <T> T rewritingLog(String action, SqlWork<T> work) {
        try {
            return write(action, work);
        } finally {
            logRewrites.invalidate();
        }
    }

    private <T> T read(String action, SqlWork<T> work) {
        try {
            return database.read(work);
        } catch (SQLException e) {
            throw failure(dialect, action, e);
        }
    }

    private static MetadataStoreException failure(Dialect dialect, String action, SQLException e) {
        return new MetadataStoreException(
                "metadata store " + dialect.describe() + " failed to " + action + ": " + e.getMessage(),
                dialect.retriable(e),
                e);
    }
}
