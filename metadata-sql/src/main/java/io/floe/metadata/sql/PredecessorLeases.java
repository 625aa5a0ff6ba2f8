package io.floe.metadata.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends, when an embedded store is opened, what an earlier process on it still seemed to hold: its
 * node id, its groups' coordinator leases and its membership row. The store's file lock says that
 * process is gone, so waiting for its leases to run out (a restarted agent taking node id 1 instead of
 * 0, its groups waiting a lease longer) would protect nothing. The wait for the earlier process's
 * consumer group members stays: they may still be alive, consuming what they were assigned.
 */
final class PredecessorLeases {

    private static final Logger LOGGER = LoggerFactory.getLogger(PredecessorLeases.class);

    private PredecessorLeases() {}

    static void end(Connection connection, Instant now, String where) throws SQLException {
        long at = now.toEpochMilli();
        int nodeIds = update(
                connection,
                "UPDATE job_leases SET expires_at = ? WHERE job LIKE '" + NodeIds.PREFIX + "%' AND expires_at > ?",
                at);
        int groups = update(connection, "UPDATE group_coordinators SET expires_at = ? WHERE expires_at > ?", at);
        int agents;
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM agents")) {
            agents = delete.executeUpdate();
        }
        if (nodeIds + groups + agents > 0) {
            LOGGER.info(
                    "ended what an earlier process left on the embedded store store={} nodeIdLeases={}"
                            + " groupLeases={} agentRows={}",
                    where,
                    nodeIds,
                    groups,
                    agents);
        }
    }

    private static int update(Connection connection, String sql, long at) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql)) {
            update.setLong(1, at);
            update.setLong(2, at);
            return update.executeUpdate();
        }
    }
}
