package io.floe.metadata.sql;

import io.floe.core.metadata.JobLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Leases of background jobs, one row per job. Taking a lease reads its row for update, so two agents
 * racing for one job serialize on it (and on PostgreSQL a second insert of a new job's row fails on
 * the primary key: {@link SqlMetadataStore#acquireLease} asks once more and finds the winner's lease).
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
                    insert(connection, job, owner, expiresAt);
                    return Optional.of(new JobLease(job, owner, 1, expiresAt));
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

    private static void insert(Connection connection, String job, String owner, Instant expiresAt) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO job_leases (job, owner, epoch, expires_at) VALUES (?, ?, 1, ?)")) {
            insert.setString(1, job);
            insert.setString(2, owner);
            insert.setLong(3, expiresAt.toEpochMilli());
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
