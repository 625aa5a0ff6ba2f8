package io.floe.core.metadata;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * One agent's entry in the cluster's membership: its id, the Kafka node id clients know it by, the
 * address they reach it at, its rack ({@code null} when none is configured) and the time of its last
 * heartbeat. Stores keep times
 * to the millisecond, so {@code heartbeatAt} is truncated to milliseconds here.
 */
public record AgentRegistration(String agentId, int nodeId, String host, int port, String rack, Instant heartbeatAt) {

    public static final int AGENT_ID_LENGTH_MAX = 255;
    public static final int HOST_LENGTH_MAX = 255;
    public static final int RACK_LENGTH_MAX = 255;

    public AgentRegistration {
        requireText("agentId", agentId, AGENT_ID_LENGTH_MAX);
        requireText("host", host, HOST_LENGTH_MAX);
        if (rack != null) {
            requireText("rack", rack, RACK_LENGTH_MAX);
        }
        if (nodeId < 0) {
            throw new IllegalArgumentException("node id of agent " + agentId + " must be >= 0, got " + nodeId);
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port of agent " + agentId + " must be in [1, 65535], got " + port);
        }
        heartbeatAt = Objects.requireNonNull(heartbeatAt, "heartbeatAt").truncatedTo(ChronoUnit.MILLIS);
    }

    private static void requireText(String name, String value, int lengthMax) {
        Objects.requireNonNull(value, name);
        if (value.isBlank() || value.length() > lengthMax) {
            throw new IllegalArgumentException(
                    name + " must be 1 to " + lengthMax + " characters and not blank, got '" + value + "'");
        }
    }
}
