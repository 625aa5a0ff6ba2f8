package io.floe.metadata.sql;

import io.floe.core.group.GroupMembership;
import io.floe.core.metadata.CoordinatorLease;
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
 * Rows of {@code group_coordinators}: the coordinator lease of each consumer group (DESIGN §8). Like
 * {@link JobLeases}, taking a lease reads its row for update, so agents racing for one group
 * serialize on it; and every write for the group (offset commits, transactional offset commits, offset
 * and group deletions) reads the same row for update first ({@link #holds}), so a write and a change
 * of holder never interleave: a write either lands before the new holder's epoch or is refused.
 * The members a holder records ({@link #record}) are the group's at the epoch it records them
 * ({@code members_epoch}); a takeover passes them to the new epoch when the earlier holder recorded at
 * its own, and only then. A row on which nothing depends any more is deleted ({@link #expire}); the
 * group's next row starts above the highest epoch ever deleted ({@code coordinator_epoch_floor}), so
 * epochs of a group only grow, across deletions too. Each method runs inside the caller's transaction.
 */
final class CoordinatorLeases {

    private final Dialect dialect;

    CoordinatorLeases(Dialect dialect) {
        this.dialect = dialect;
    }

    Optional<CoordinatorLease> acquire(
            Connection connection, String groupId, String owner, Instant now, Duration ttl, Duration sessionTimeout)
            throws SQLException {
        long expiresAt = now.plus(ttl).toEpochMilli();
        try (PreparedStatement select = connection.prepareStatement("SELECT owner, epoch, expires_at,"
                + " session_timeout_ms, prior_members_until, members_epoch FROM group_coordinators WHERE group_id = ?"
                + dialect.forUpdate())) {
            select.setString(1, groupId);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    long epoch = Counters.value(connection, Counters.COORDINATOR_EPOCH_FLOOR) + 1;
                    insert(connection, groupId, owner, epoch, expiresAt, sessionTimeout);
                    return Optional.of(lease(groupId, owner, epoch, expiresAt, 0));
                }
                String holder = row.getString(1);
                long epoch = row.getLong(2);
                long heldUntil = row.getLong(3);
                long priorMembersUntil = row.getLong(5);
                long membersEpoch = row.getLong(6);
                boolean expired = heldUntil <= now.toEpochMilli();
                if (holder.equals(owner) && !expired) {
                    update(
                            connection,
                            groupId,
                            owner,
                            epoch,
                            expiresAt,
                            sessionTimeout,
                            priorMembersUntil,
                            membersEpoch);
                    return Optional.of(lease(groupId, owner, epoch, expiresAt, priorMembersUntil));
                }
                if (!expired) {
                    return Optional.empty();
                }
                if (membersEpoch == epoch) {
                    // The earlier holder recorded every member that may own partitions: they pass to the new
                    // epoch, and the new holder waits for them itself; only an older wait (for members nobody
                    // recorded) carries on.
                    update(
                            connection,
                            groupId,
                            owner,
                            epoch + 1,
                            expiresAt,
                            sessionTimeout,
                            priorMembersUntil,
                            epoch + 1);
                } else {
                    // The earlier holder answered its members until its lease ended; their sessions last this long
                    // after. A holder that was itself still waiting (no members of its own yet) passes its wait on.
                    priorMembersUntil = Math.max(priorMembersUntil, heldUntil + row.getLong(4));
                    update(
                            connection,
                            groupId,
                            owner,
                            epoch + 1,
                            expiresAt,
                            sessionTimeout,
                            priorMembersUntil,
                            membersEpoch);
                }
                return Optional.of(lease(groupId, owner, epoch + 1, expiresAt, priorMembersUntil));
            }
        }
    }

    /**
     * Replaces the group's recorded membership with {@code members} at the lease's epoch, if the lease
     * is still held (the row locked); false otherwise.
     */
    boolean record(Connection connection, CoordinatorLease lease, GroupMembership members) throws SQLException {
        if (!holds(connection, lease)) {
            return false;
        }
        try (PreparedStatement update = connection.prepareStatement("UPDATE group_coordinators SET members_epoch = ?,"
                + " group_protocol = ?, generation_id = ?, protocol_type = ?, protocol_name = ?, members_session_ms = ?"
                + " WHERE group_id = ?")) {
            update.setLong(1, lease.epoch());
            update.setString(2, members.protocol().name());
            update.setInt(3, members.generationId());
            update.setString(4, members.protocolType());
            update.setString(5, members.protocolName());
            update.setLong(6, members.longestSessionMs());
            update.setString(7, lease.groupId());
            update.executeUpdate();
        }
        try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM group_coordinator_members WHERE group_id = ?")) {
            delete.setString(1, lease.groupId());
            delete.executeUpdate();
        }
        if (members.members().isEmpty()) {
            return true;
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO group_coordinator_members (group_id,"
                + " member_id, group_instance_id, client_id, client_host, session_timeout_ms, rebalance_timeout_ms)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            for (GroupMembership.Member member : members.members()) {
                insert.setString(1, lease.groupId());
                insert.setString(2, member.memberId());
                insert.setString(3, member.groupInstanceId());
                insert.setString(4, member.clientId());
                insert.setString(5, member.clientHost());
                insert.setInt(6, member.sessionTimeoutMs());
                insert.setInt(7, member.rebalanceTimeoutMs());
                insert.addBatch();
            }
            insert.executeBatch();
        }
        return true;
    }

    /** The membership recorded at the lease's epoch, if one is. */
    Optional<GroupMembership> recorded(Connection connection, CoordinatorLease lease) throws SQLException {
        GroupMembership.Protocol protocol;
        int generationId;
        String protocolType;
        String protocolName;
        try (PreparedStatement select = connection.prepareStatement("SELECT members_epoch, group_protocol,"
                + " generation_id, protocol_type, protocol_name FROM group_coordinators WHERE group_id = ?")) {
            select.setString(1, lease.groupId());
            try (ResultSet row = select.executeQuery()) {
                if (!row.next() || row.getLong(1) != lease.epoch()) {
                    return Optional.empty();
                }
                protocol = GroupMembership.Protocol.valueOf(row.getString(2));
                generationId = row.getInt(3);
                protocolType = row.getString(4);
                protocolName = row.getString(5);
            }
        }
        List<GroupMembership.Member> members = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("SELECT member_id, group_instance_id, client_id,"
                + " client_host, session_timeout_ms, rebalance_timeout_ms FROM group_coordinator_members"
                + " WHERE group_id = ?")) {
            select.setString(1, lease.groupId());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    members.add(new GroupMembership.Member(
                            rows.getString(1),
                            rows.getString(2),
                            rows.getString(3),
                            rows.getString(4),
                            rows.getInt(5),
                            rows.getInt(6)));
                }
            }
        }
        return Optional.of(new GroupMembership(protocol, generationId, protocolType, protocolName, members));
    }

    /** Ends the lease at {@code now} if it is still held at its epoch and running. */
    void release(Connection connection, CoordinatorLease lease, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE group_coordinators SET expires_at = ?"
                + " WHERE group_id = ? AND owner = ? AND epoch = ? AND expires_at > ?")) {
            update.setLong(1, now.toEpochMilli());
            update.setString(2, lease.groupId());
            update.setString(3, lease.owner());
            update.setLong(4, lease.epoch());
            update.setLong(5, now.toEpochMilli());
            update.executeUpdate();
        }
    }

    /**
     * Whether the group's lease is still held by the lease's owner at its epoch, locking the row until
     * the transaction ends. Expiry alone does not fence: until another agent takes the lease (which
     * waits for this lock), nobody else wrote for the group.
     */
    boolean holds(Connection connection, CoordinatorLease lease) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT owner, epoch FROM group_coordinators WHERE group_id = ?" + dialect.forUpdate())) {
            select.setString(1, lease.groupId());
            try (ResultSet row = select.executeQuery()) {
                return row.next() && row.getString(1).equals(lease.owner()) && row.getLong(2) == lease.epoch();
            }
        }
    }

    /**
     * Whether another agent than {@code owner} may have members of the group at {@code now}: its lease
     * runs, or ended less than its members' longest session (or an earlier holder's wait) ago. Locks the
     * row, so no agent takes the lease until the transaction ends.
     */
    boolean othersMayHaveMembers(Connection connection, String groupId, String owner, Instant now) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT owner, expires_at, session_timeout_ms,"
                + " prior_members_until FROM group_coordinators WHERE group_id = ?" + dialect.forUpdate())) {
            select.setString(1, groupId);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next() || row.getString(1).equals(owner)) {
                    return false;
                }
                long membersUntil = Math.max(row.getLong(2) + row.getLong(3), row.getLong(4));
                return membersUntil > now.toEpochMilli();
            }
        }
    }

    /**
     * Deletes up to {@code max} leases that ended before {@code endedBefore} and whose members' sessions
     * (the holder's longest, the recorded members' longest, counted from the lease's end, and an earlier
     * holder's wait) all ran out before {@code now}, with their recorded members; first raises the epoch
     * floor to the highest epoch deleted, in the same transaction, so that a lease re-created for one of
     * these groups starts above it. Every condition is on the lease row, which every write for the group
     * locks first ({@link #holds}, {@link #acquire}): locked here, a row that a concurrent write renewed or
     * recorded members on is seen as that write left it, and kept.
     */
    int expire(Connection connection, Instant endedBefore, Instant now, int max) throws SQLException {
        List<String> groups = new ArrayList<>();
        long highestEpoch = 0;
        try (PreparedStatement select = connection.prepareStatement("SELECT group_id, epoch FROM group_coordinators"
                + " WHERE expires_at < ? AND expires_at + session_timeout_ms < ? AND expires_at + members_session_ms < ?"
                + " AND prior_members_until < ? ORDER BY expires_at, group_id LIMIT ?" + dialect.forUpdate())) {
            select.setLong(1, endedBefore.toEpochMilli());
            select.setLong(2, now.toEpochMilli());
            select.setLong(3, now.toEpochMilli());
            select.setLong(4, now.toEpochMilli());
            select.setInt(5, max);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    groups.add(rows.getString(1));
                    highestEpoch = Math.max(highestEpoch, rows.getLong(2));
                }
            }
        }
        if (groups.isEmpty()) {
            return 0;
        }
        Counters.raise(connection, Counters.COORDINATOR_EPOCH_FLOOR, highestEpoch);
        deleteEach(connection, "DELETE FROM group_coordinator_members WHERE group_id = ?", groups);
        deleteEach(connection, "DELETE FROM group_coordinators WHERE group_id = ?", groups);
        return groups.size();
    }

    private static void deleteEach(Connection connection, String sql, List<String> groups) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(sql)) {
            for (String groupId : groups) {
                delete.setString(1, groupId);
                delete.addBatch();
            }
            delete.executeBatch();
        }
    }

    private static void insert(
            Connection connection, String groupId, String owner, long epoch, long expiresAt, Duration sessionTimeout)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO group_coordinators (group_id, owner,"
                + " epoch, expires_at, session_timeout_ms, prior_members_until) VALUES (?, ?, ?, ?, ?, 0)")) {
            insert.setString(1, groupId);
            insert.setString(2, owner);
            insert.setLong(3, epoch);
            insert.setLong(4, expiresAt);
            insert.setLong(5, sessionTimeout.toMillis());
            insert.executeUpdate();
        }
    }

    private static void update(
            Connection connection,
            String groupId,
            String owner,
            long epoch,
            long expiresAt,
            Duration sessionTimeout,
            long priorMembersUntil,
            long membersEpoch)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE group_coordinators SET owner = ?, epoch = ?,"
                        + " expires_at = ?, session_timeout_ms = ?, prior_members_until = ?, members_epoch = ? WHERE group_id = ?")) {
            update.setString(1, owner);
            update.setLong(2, epoch);
            update.setLong(3, expiresAt);
            update.setLong(4, sessionTimeout.toMillis());
            update.setLong(5, priorMembersUntil);
            update.setLong(6, membersEpoch);
            update.setString(7, groupId);
            update.executeUpdate();
        }
    }

    private static CoordinatorLease lease(
            String groupId, String owner, long epoch, long expiresAt, long priorMembersUntil) {
        return new CoordinatorLease(
                groupId, owner, epoch, Instant.ofEpochMilli(expiresAt), Instant.ofEpochMilli(priorMembersUntil));
    }
}
