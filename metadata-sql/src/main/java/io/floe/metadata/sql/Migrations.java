package io.floe.metadata.sql;

import io.floe.core.metadata.MetadataStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema, versioned in code. A database records the versions applied to it in
 * {@code schema_version}; opening applies the missing ones in order, each in its own transaction,
 * and refuses a database written by a newer Floe. Applied migrations are never edited: a change is
 * a new migration.
 */
final class Migrations {

    private static final Logger LOGGER = LoggerFactory.getLogger(Migrations.class);

    /**
     * Hot tables key rows by a numeric partition id instead of (topic id, partition): smaller
     * indexes, one-column joins. Every index on {@code batches} costs a page write per partition a
     * commit touches, so there are only two: the primary key (which also finds the batch holding an
     * offset, see {@code BatchIndex}) and the object key (reference counts, compaction, and the
     * foreign-key check when an object row is deleted). A producer's last batches live in one
     * column of its state row ({@code ProducerHistory} encodes them), so a commit writes one row per
     * producer and partition. Times are epoch milliseconds.
     */
    private static final Migration INITIAL = new Migration(
            1,
            "topics, partitions, objects, batches, producers",
            List.of(
                    """
            CREATE TABLE counters (
                name VARCHAR(64) PRIMARY KEY,
                value BIGINT NOT NULL)""",
                    "INSERT INTO counters (name, value) VALUES ('producer_id', 1000)",
                    "INSERT INTO counters (name, value) VALUES ('partition_id', 1)",
                    """
            CREATE TABLE topics (
                id CHAR(36) PRIMARY KEY,
                name VARCHAR(249) NOT NULL UNIQUE,
                partition_count INTEGER NOT NULL CHECK (partition_count > 0),
                created_at BIGINT NOT NULL)""",
                    """
            CREATE TABLE topic_configs (
                topic_id CHAR(36) NOT NULL REFERENCES topics (id),
                name VARCHAR(255) NOT NULL,
                value TEXT NOT NULL,
                PRIMARY KEY (topic_id, name))""",
                    """
            CREATE TABLE partitions (
                id BIGINT PRIMARY KEY,
                topic_id CHAR(36) NOT NULL REFERENCES topics (id),
                partition_index INTEGER NOT NULL,
                log_start_offset BIGINT NOT NULL,
                next_offset BIGINT NOT NULL,
                UNIQUE (topic_id, partition_index),
                CHECK (0 <= log_start_offset AND log_start_offset <= next_offset))""",
                    """
            CREATE TABLE objects (
                object_key VARCHAR(1024) PRIMARY KEY,
                agent_id VARCHAR(255) NOT NULL,
                registered_at BIGINT NOT NULL,
                state VARCHAR(16) NOT NULL CHECK (state IN ('REGISTERED', 'COMMITTED')),
                size_bytes BIGINT,
                ref_count INTEGER NOT NULL CHECK (ref_count >= 0))""",
                    """
            CREATE TABLE batches (
                partition_id BIGINT NOT NULL REFERENCES partitions (id),
                base_offset BIGINT NOT NULL,
                last_offset BIGINT NOT NULL,
                object_key VARCHAR(1024) NOT NULL REFERENCES objects (object_key),
                byte_position BIGINT NOT NULL,
                byte_length INTEGER NOT NULL,
                max_timestamp BIGINT NOT NULL,
                producer_id BIGINT NOT NULL,
                producer_epoch SMALLINT NOT NULL,
                base_sequence INTEGER NOT NULL,
                last_sequence INTEGER NOT NULL,
                PRIMARY KEY (partition_id, base_offset),
                CHECK (base_offset <= last_offset))""",
                    "CREATE INDEX batches_by_object ON batches (object_key)",
                    """
            CREATE TABLE producer_state (
                partition_id BIGINT NOT NULL REFERENCES partitions (id),
                producer_id BIGINT NOT NULL,
                producer_epoch SMALLINT NOT NULL,
                last_sequence INTEGER NOT NULL,
                recent_batches VARCHAR(255) NOT NULL,
                PRIMARY KEY (partition_id, producer_id))"""));

    /**
     * Consumer groups' committed offsets, keyed by group, topic name and partition as Kafka keys them
     * (a name, not a topic id, so an offset stays readable after its topic is gone until topic
     * deletion clears it). The topic index serves that clearing; group lookups use the primary key.
     */
    private static final Migration GROUP_OFFSETS = new Migration(
            2,
            "consumer group offsets",
            List.of("""
            CREATE TABLE group_offsets (
                group_id TEXT NOT NULL,
                topic_name VARCHAR(249) NOT NULL,
                partition_index INTEGER NOT NULL,
                committed_offset BIGINT NOT NULL,
                leader_epoch INTEGER NOT NULL,
                metadata TEXT NOT NULL,
                commit_timestamp BIGINT NOT NULL,
                PRIMARY KEY (group_id, topic_name, partition_index))""", "CREATE INDEX group_offsets_by_topic ON group_offsets (topic_name)"));

    /**
     * The agents' membership: one row per agent, replaced by each heartbeat. Few rows, read whole by
     * the liveness query, so no index beyond the key.
     */
    private static final Migration AGENTS = new Migration(3, "agent membership", List.of("""
            CREATE TABLE agents (
                agent_id VARCHAR(255) PRIMARY KEY,
                host VARCHAR(255) NOT NULL,
                port INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
                rack VARCHAR(255),
                heartbeat_at BIGINT NOT NULL)"""));

    /**
     * Background jobs (DESIGN §5): one lease row per job, and the deletion schedule. An object that
     * lost its last reference (or whose registration expired) leaves {@code objects} for
     * {@code object_deletions} in the transaction that decided it, so nothing can commit into it or
     * point at it again; the object store's copy is deleted after {@code delete_after}, then the row.
     */
    private static final Migration MAINTENANCE = new Migration(
            4,
            "job leases, object deletion schedule",
            List.of("""
            CREATE TABLE job_leases (
                job VARCHAR(200) PRIMARY KEY,
                owner VARCHAR(255) NOT NULL,
                epoch BIGINT NOT NULL,
                expires_at BIGINT NOT NULL)""", """
            CREATE TABLE object_deletions (
                object_key VARCHAR(1024) PRIMARY KEY,
                reason VARCHAR(16) NOT NULL,
                delete_after BIGINT NOT NULL)""", "CREATE INDEX object_deletions_by_time ON object_deletions (delete_after)"));

    /** The Kafka node id each agent shows clients, so membership can list agents as brokers. */
    private static final Migration AGENT_NODE_IDS = new Migration(
            5, "agent node ids", List.of("ALTER TABLE agents ADD COLUMN node_id INTEGER NOT NULL DEFAULT 0"));

    /** Offsets retention must not pass, per partition and holder (Tableflow's table watermarks). */
    private static final Migration RETENTION_HOLDS = new Migration(6, "retention holds", List.of("""
            CREATE TABLE retention_holds (
                partition_id BIGINT NOT NULL REFERENCES partitions (id),
                holder VARCHAR(200) NOT NULL,
                hold_offset BIGINT NOT NULL,
                PRIMARY KEY (partition_id, holder))"""));

    /** Grows whenever committed batches move or disappear: agents check it before serving from their index. */
    private static final Migration LOG_REWRITES = new Migration(
            7,
            "log rewrites counter",
            List.of("INSERT INTO counters (name, value) VALUES ('" + Counters.LOG_REWRITES + "', 0)"));

    /**
     * Per producer and partition: the first sequence its current epoch stored (a retry is known to be
     * stored only within that epoch's range; null for rows written before, whose start is not known),
     * and when it last wrote, so that idle producers' state expires ({@code producer.id.expiration.ms}).
     * Rows written before have no time; the first expiry pass stamps them with its own.
     */
    private static final Migration PRODUCER_EXPIRY = new Migration(
            8,
            "producer epoch start, producer expiry",
            List.of(
                    "ALTER TABLE producer_state ADD COLUMN first_sequence INTEGER",
                    "ALTER TABLE producer_state ADD COLUMN written_at BIGINT",
                    "CREATE INDEX producer_state_by_time ON producer_state (written_at)"));

    /**
     * Coordinator leases of consumer groups (DESIGN §8): one row per group, with the epoch every
     * offset commit checks. {@code session_timeout_ms} is the holder's longest member session and
     * {@code prior_members_until} the time before which members of an earlier holder may still live,
     * so a new holder knows how long to wait before it forms a generation. Node ids need no table:
     * they are job leases named {@code node-id/N}.
     */
    private static final Migration COORDINATOR_LEASES = new Migration(9, "group coordinator leases", List.of("""
            CREATE TABLE group_coordinators (
                group_id TEXT PRIMARY KEY,
                owner VARCHAR(255) NOT NULL,
                epoch BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                session_timeout_ms BIGINT NOT NULL,
                prior_members_until BIGINT NOT NULL)"""));

    /**
     * Kafka transactions (the {@code Transactions} role): one row per transactional id, the partitions
     * and pending offsets of its open transaction, and transaction markers, which take an offset in
     * their partition but live here rather than in an object. Abort markers are also the index of
     * aborted transactions that read-committed fetches answer with. The first offset of a producer's
     * open transaction on a partition is a column of its partition state; the two partial indexes serve
     * the last stable offset (by partition) and the end of a transaction (by producer), and stay as
     * small as the set of open transactions.
     */
    private static final Migration TRANSACTIONS = new Migration(
            10,
            "transactions, transaction markers",
            List.of(
                    """
            CREATE TABLE transactions (
                transactional_id TEXT PRIMARY KEY,
                producer_id BIGINT NOT NULL UNIQUE,
                producer_epoch SMALLINT NOT NULL,
                last_producer_epoch SMALLINT NOT NULL,
                previous_producer_id BIGINT NOT NULL,
                state VARCHAR(16) NOT NULL,
                timeout_ms INTEGER NOT NULL,
                started_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL)""",
                    "CREATE INDEX transactions_by_state ON transactions (state, started_at)",
                    """
            CREATE TABLE transaction_partitions (
                transactional_id TEXT NOT NULL,
                partition_id BIGINT NOT NULL,
                PRIMARY KEY (transactional_id, partition_id))""",
                    """
            CREATE TABLE pending_offsets (
                transactional_id TEXT NOT NULL,
                group_id TEXT NOT NULL,
                topic_name VARCHAR(249) NOT NULL,
                partition_index INTEGER NOT NULL,
                committed_offset BIGINT NOT NULL,
                leader_epoch INTEGER NOT NULL,
                metadata TEXT NOT NULL,
                commit_timestamp BIGINT NOT NULL,
                PRIMARY KEY (transactional_id, group_id, topic_name, partition_index))""",
                    "CREATE INDEX pending_offsets_by_group ON pending_offsets (group_id)",
                    """
            CREATE TABLE txn_markers (
                partition_id BIGINT NOT NULL REFERENCES partitions (id),
                marker_offset BIGINT NOT NULL,
                producer_id BIGINT NOT NULL,
                producer_epoch SMALLINT NOT NULL,
                committed SMALLINT NOT NULL,
                first_offset BIGINT NOT NULL,
                coordinator_epoch INTEGER NOT NULL,
                marker_timestamp BIGINT NOT NULL,
                PRIMARY KEY (partition_id, marker_offset))""",
                    "ALTER TABLE producer_state ADD COLUMN txn_first_offset BIGINT",
                    "CREATE INDEX producer_state_open_by_partition ON producer_state (partition_id, txn_first_offset)"
                            + " WHERE txn_first_offset IS NOT NULL",
                    "CREATE INDEX producer_state_open_by_producer ON producer_state (producer_id)"
                            + " WHERE txn_first_offset IS NOT NULL"));

    /**
     * Key compaction's bookkeeping: the delete horizon of a transaction marker it found removable (Kafka
     * stamps it into the control batch, KIP-534), and the first offset of each partition's emulated
     * active segment, which it never cleans. Both are written by key compaction only.
     */
    private static final Migration KEY_COMPACTION_STATE = new Migration(
            11,
            "transaction markers' delete horizon, emulated active segments",
            List.of(
                    "ALTER TABLE txn_markers ADD COLUMN delete_horizon BIGINT",
                    "ALTER TABLE partitions ADD COLUMN segment_base_offset BIGINT NOT NULL DEFAULT 0"));

    /**
     * Indexes for the periodic work that looks for what is due, so that its cost follows what is due and
     * not what was ever stored: offsets past retention (by commit time), transactional ids past their
     * expiration (by last change), live agents (by heartbeat; a killed agent's row stays behind).
     */
    private static final Migration DUE_WORK_INDEXES = new Migration(
            12,
            "indexes for periodic work",
            List.of(
                    "CREATE INDEX group_offsets_by_time ON group_offsets (commit_timestamp)",
                    "CREATE INDEX transactions_by_update ON transactions (updated_at)",
                    "CREATE INDEX agents_by_heartbeat ON agents (heartbeat_at)"));

    /**
     * The members each group's coordinator records with its lease (issue 27): the epoch they were
     * recorded at (0: never, as by agents of earlier versions, whose successors then wait out the
     * members' sessions), the group's protocol and generation, and a row per member.
     */
    private static final Migration COORDINATOR_MEMBERS = new Migration(
            13,
            "members recorded with group coordinator leases",
            List.of(
                    "ALTER TABLE group_coordinators ADD COLUMN members_epoch BIGINT NOT NULL DEFAULT 0",
                    "ALTER TABLE group_coordinators ADD COLUMN group_protocol VARCHAR(16) NOT NULL DEFAULT 'CLASSIC'",
                    "ALTER TABLE group_coordinators ADD COLUMN generation_id INTEGER NOT NULL DEFAULT 0",
                    "ALTER TABLE group_coordinators ADD COLUMN protocol_type TEXT NOT NULL DEFAULT ''",
                    "ALTER TABLE group_coordinators ADD COLUMN protocol_name TEXT NOT NULL DEFAULT ''",
                    """
            CREATE TABLE group_coordinator_members (
                group_id TEXT NOT NULL,
                member_id TEXT NOT NULL,
                group_instance_id TEXT,
                client_id TEXT NOT NULL,
                client_host TEXT NOT NULL,
                session_timeout_ms INTEGER NOT NULL,
                rebalance_timeout_ms INTEGER NOT NULL,
                PRIMARY KEY (group_id, member_id))"""));

    /**
     * Forgetting lease rows nothing depends on any more (issue 27): coordinator leases of groups nobody
     * coordinated for a day and job leases of jobs that stopped, found through indexes on their expiry;
     * the longest session of the members recorded with a coordinator lease, kept on its row so that one
     * row tells whether they may still be alive (filled in from the members recorded before); and a floor
     * per table, the highest epoch forgotten, above which a re-created lease starts.
     */
    private static final Migration LEASE_EXPIRY = new Migration(
            14,
            "expiry of unused lease rows, epoch floors",
            List.of(
                    "ALTER TABLE group_coordinators ADD COLUMN members_session_ms BIGINT NOT NULL DEFAULT 0",
                    "UPDATE group_coordinators SET members_session_ms = COALESCE((SELECT MAX(m.session_timeout_ms)"
                            + " FROM group_coordinator_members m WHERE m.group_id = group_coordinators.group_id), 0)",
                    "CREATE INDEX group_coordinators_by_expiry ON group_coordinators (expires_at)",
                    "CREATE INDEX job_leases_by_expiry ON job_leases (expires_at)",
                    "INSERT INTO counters (name, value) VALUES ('" + Counters.COORDINATOR_EPOCH_FLOOR + "', 0)",
                    "INSERT INTO counters (name, value) VALUES ('" + Counters.JOB_LEASE_EPOCH_FLOOR + "', 0)"));

    /** Every migration, in version order; append, never edit. */
    static final List<Migration> ALL = List.of(
            INITIAL,
            GROUP_OFFSETS,
            AGENTS,
            MAINTENANCE,
            AGENT_NODE_IDS,
            RETENTION_HOLDS,
            LOG_REWRITES,
            PRODUCER_EXPIRY,
            COORDINATOR_LEASES,
            TRANSACTIONS,
            KEY_COMPACTION_STATE,
            DUE_WORK_INDEXES,
            COORDINATOR_MEMBERS,
            LEASE_EXPIRY);

    static final int LATEST = ALL.get(ALL.size() - 1).version();

    private Migrations() {}

    /**
     * Brings the database to {@link #LATEST}; returns the version it was at before. Stores that start
     * at once on one database take turns: each step holds the dialect's schema lock and checks the
     * version again under it, so every migration is applied once.
     */
    static int apply(Database database, Dialect dialect, Clock clock, String where) throws SQLException {
        database.write(connection -> {
            dialect.lockSchema(connection);
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY,"
                        + " description VARCHAR(200) NOT NULL, applied_at BIGINT NOT NULL)");
            }
            return null;
        });
        int found = database.read(Migrations::currentVersion);
        if (found > LATEST) {
            throw new MetadataStoreException(
                    "metadata store " + where + " has schema version " + found + ", newer than this Floe supports ("
                            + LATEST + "): upgrade Floe or use another database",
                    false,
                    null);
        }
        for (Migration migration : ALL) {
            if (migration.version() > found
                    && database.write(connection -> applyIfMissing(connection, dialect, migration, clock))) {
                LOGGER.info(
                        "applied metadata migration store={} version={} description={}",
                        where,
                        migration.version(),
                        migration.description());
            }
        }
        return found;
    }

    static int currentVersion(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT MAX(version) FROM schema_version")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** Applies {@code migration} unless another store did since this one read the version; true if applied. */
    private static boolean applyIfMissing(Connection connection, Dialect dialect, Migration migration, Clock clock)
            throws SQLException {
        dialect.lockSchema(connection);
        if (currentVersion(connection) >= migration.version()) {
            return false;
        }
        try (Statement statement = connection.createStatement()) {
            for (String sql : migration.statements()) {
                statement.execute(sql);
            }
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)")) {
            insert.setInt(1, migration.version());
            insert.setString(2, migration.description());
            insert.setLong(3, clock.millis());
            insert.executeUpdate();
        }
        return true;
    }
}
