package io.floe.metadata.sql;

import io.floe.core.metadata.JobLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Leases of background jobs, one row per job. Taking a lease reads its row for update, so two agents
 * racing for one job serialize on it (and on PostgreSQL a second insert of a new job's row fails on
 * the primary key: {@link SqlMetadataStore#acquireLease} asks once more and finds the winner's lease).
 * A lease no agent held for long is deleted ({@link #expire}); a lease taken again under its name
 * starts above the highest epoch ever deleted ({@code job_lease_epoch_floor}), so epochs under a name
 * only grow, across deletions too (Tableflow records a table's lease epoch on the table and refuses
 * lower ones).
 */
final class JobLeases {

    private final Dialect dialect;

    JobLeases(Dialect dialect) {
        this.dialect = dialect;
    }

    Optional<JobLease> acquire(Connection connection, String job, String owner, Instant now, Duration ttl)
            throws SQLException {
        Instant expiresAt = now.plus(ttl);
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT owner, epoch, expires_at FROM job_leases WHERE job = ?" + dialect.forUpdate())) {
            select.setString(1, job);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    long epoch = Counters.value(connection, Counters.JOB_LEASE_EPOCH_FLOOR) + 1;
                    insert(connection, job, owner, epoch, expiresAt);
                    return Optional.of(new JobLease(job, owner, epoch, expiresAt));
                }
                String holder = row.getString(1);
                long epoch = row.getLong(2);
                boolean expired = row.getLong(3) <= now.toEpochMilli();
                if (holder.equals(owner) && !expired) {
                    update(connection, job, owner, epoch, expiresAt);
                    return Optional.of(new JobLease(job, owner, epoch, expiresAt));
                }
                if (expired) {
                    update(connection, job, owner, epoch + 1, expiresAt);
                    return Optional.of(new JobLease(job, owner, epoch + 1, expiresAt));
                }
                return Optional.empty();
            }
        }
    }

    void release(Connection connection, JobLease lease) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE job_leases SET expires_at = 0 WHERE job = ? AND owner = ? AND epoch = ?")) {
            update.setString(1, lease.job());
            update.setString(2, lease.owner());
            update.setLong(3, lease.epoch());
            update.executeUpdate();
        }
    }

    /**
     * Deletes up to {@code max} leases that ran out or were released before {@code endedBefore}; first
     * raises the epoch floor to the highest epoch deleted, in the same transaction, so that a lease
     * re-created under one of these names starts above it. Locked here, a lease that a concurrent
     * acquisition renewed is seen renewed, and kept.
     */
    int expire(Connection connection, Instant endedBefore, int max) throws SQLException {
        List<String> jobs = new ArrayList<>();
        long highestEpoch = 0;
        try (PreparedStatement select = connection.prepareStatement("SELECT job, epoch FROM job_leases"
                + " WHERE expires_at < ? ORDER BY expires_at, job LIMIT ?" + dialect.forUpdate())) {
            select.setLong(1, endedBefore.toEpochMilli());
            select.setInt(2, max);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    jobs.add(rows.getString(1));
                    highestEpoch = Math.max(highestEpoch, rows.getLong(2));
                }
            }
        }
        if (jobs.isEmpty()) {
            return 0;
        }
        Counters.raise(connection, Counters.JOB_LEASE_EPOCH_FLOOR, highestEpoch);
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM job_leases WHERE job = ?")) {
            for (String job : jobs) {
                delete.setString(1, job);
                delete.addBatch();
            }
            delete.executeBatch();
        }
        return jobs.size();
    }

    private static void insert(Connection connection, String job, String owner, long epoch, Instant expiresAt)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO job_leases (job, owner, epoch, expires_at) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, job);
            insert.setString(2, owner);
            insert.setLong(3, epoch);
            insert.setLong(4, expiresAt.toEpochMilli());
            insert.executeUpdate();
        }
    }

    private static void update(Connection connection, String job, String owner, long epoch, Instant expiresAt)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE job_leases SET owner = ?, epoch = ?, expires_at = ? WHERE job = ?")) {
            update.setString(1, owner);
            update.setLong(2, epoch);
            update.setLong(3, expiresAt.toEpochMilli());
            update.setString(4, job);
            update.executeUpdate();
        }
    }
}
