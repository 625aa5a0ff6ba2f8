package io.floe.metadata.sql;

import io.floe.core.metadata.JobLease;
import io.floe.core.metadata.NodeIdClaim;
import io.floe.core.metadata.NodeIdLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Agents' node ids, held as job leases named {@code node-id/N}: the lease rows already give one
 * holder at a time, an epoch per holder and expiry, and two agents racing for one id serialize on
 * its row (or, on PostgreSQL, the second insert of a new id fails on the primary key and
 * {@link SqlMetadataStore} asks again). Each method runs inside the caller's transaction.
 */
final class NodeIds {

    static final String PREFIX = "node-id/";

    private final JobLeases leases;

    NodeIds(JobLeases leases) {
        this.leases = leases;
    }

    NodeIdClaim claim(Connection connection, int nodeId, String agentId, Instant now, Duration ttl)
            throws SQLException {
        Optional<JobLease> granted = leases.acquire(connection, job(nodeId), agentId, now, ttl);
        if (granted.isPresent()) {
            return new NodeIdClaim.Granted(lease(nodeId, granted.get()));
        }
        return new NodeIdClaim.Held(holder(connection, nodeId));
    }

    /** The agent's own live id if it has one, else the lowest id without a live lease. */
    NodeIdLease allocate(Connection connection, String agentId, Instant now, Duration ttl) throws SQLException {
        Set<Integer> held = new HashSet<>();
        Integer own = null;
        try (PreparedStatement select = connection.prepareStatement(
                        "SELECT job, owner, expires_at FROM job_leases WHERE job LIKE '" + PREFIX + "%'");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                if (rows.getLong(3) > now.toEpochMilli()) {
                    int nodeId = Integer.parseInt(rows.getString(1).substring(PREFIX.length()));
                    held.add(nodeId);
                    if (rows.getString(2).equals(agentId)) {
                        own = nodeId;
                    }
                }
            }
        }
        if (own != null && claim(connection, own, agentId, now, ttl) instanceof NodeIdClaim.Granted renewed) {
            return renewed.lease();
        }
        for (int nodeId = 0; ; nodeId++) {
            // A held id is skipped; a free one may have been taken since the read, then the next is tried.
            if (!held.contains(nodeId)
                    && claim(connection, nodeId, agentId, now, ttl) instanceof NodeIdClaim.Granted granted) {
                return granted.lease();
            }
        }
    }

    void release(Connection connection, NodeIdLease lease) throws SQLException {
        leases.release(
                connection, new JobLease(job(lease.nodeId()), lease.agentId(), lease.epoch(), lease.expiresAt()));
    }

    private static NodeIdLease holder(Connection connection, int nodeId) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement("SELECT owner, epoch, expires_at FROM job_leases WHERE job = ?")) {
            select.setString(1, job(nodeId));
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("node id " + nodeId + " was refused but has no lease row");
                }
                return new NodeIdLease(nodeId, row.getString(1), row.getLong(2), Instant.ofEpochMilli(row.getLong(3)));
            }
        }
    }

    private static NodeIdLease lease(int nodeId, JobLease lease) {
        return new NodeIdLease(nodeId, lease.owner(), lease.epoch(), lease.expiresAt());
    }

    private static String job(int nodeId) {
        return PREFIX + nodeId;
    }
}
