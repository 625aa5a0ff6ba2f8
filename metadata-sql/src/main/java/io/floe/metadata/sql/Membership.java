package io.floe.metadata.sql;

import io.floe.core.metadata.AgentRegistration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Rows of {@code agents}: one per agent, replaced by each heartbeat. Each method runs inside the caller's transaction. */
final class Membership {

    private final String upsert;

    Membership(Dialect dialect) {
        this.upsert = dialect.upsert(
                "agents", List.of("agent_id"), List.of("host", "port", "rack", "heartbeat_at", "node_id"));
    }

    void heartbeat(Connection connection, AgentRegistration agent) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(upsert)) {
            statement.setString(1, agent.agentId());
            statement.setString(2, agent.host());
            statement.setInt(3, agent.port());
            if (agent.rack() == null) {
                statement.setNull(4, Types.VARCHAR);
            } else {
                statement.setString(4, agent.rack());
            }
            statement.setLong(5, agent.heartbeatAt().toEpochMilli());
            statement.setInt(6, agent.nodeId());
            statement.executeUpdate();
        }
    }

    /** Sorted here rather than in SQL: databases order text by their own collation. */
    List<AgentRegistration> live(Connection connection, Instant heartbeatAfter) throws SQLException {
        List<AgentRegistration> agents = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT agent_id, node_id, host, port, rack, heartbeat_at FROM agents WHERE heartbeat_at > ?")) {
            select.setLong(1, heartbeatAfter.toEpochMilli());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    agents.add(new AgentRegistration(
                            rows.getString(1),
                            rows.getInt(2),
                            rows.getString(3),
                            rows.getInt(4),
                            rows.getString(5),
                            Instant.ofEpochMilli(rows.getLong(6))));
                }
            }
        }
        agents.sort(Comparator.comparing(AgentRegistration::agentId));
        return agents;
    }

    /**
     * Deletes up to {@code max} agents whose last heartbeat is before {@code heartbeatBefore}, oldest
     * first (through the heartbeat index). The deletion checks the heartbeat again, so an agent whose
     * heartbeat lands meanwhile stays.
     */
    int expire(Connection connection, Instant heartbeatBefore, int max) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM agents WHERE heartbeat_at < ? AND"
                + " agent_id IN (SELECT agent_id FROM agents WHERE heartbeat_at < ? ORDER BY heartbeat_at LIMIT ?)")) {
            delete.setLong(1, heartbeatBefore.toEpochMilli());
            delete.setLong(2, heartbeatBefore.toEpochMilli());
            delete.setInt(3, max);
            return delete.executeUpdate();
        }
    }

    boolean remove(Connection connection, String agentId) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM agents WHERE agent_id = ?")) {
            delete.setString(1, agentId);
            return delete.executeUpdate() > 0;
        }
    }
}
