package io.floe.agent.group;

import io.floe.agent.group.consumer.Assignment;
import java.util.Objects;

/**
 * The answer to a {@link ConsumerHeartbeat}.
 *
 * @param error why it was refused, or {@link GroupError#NONE}
 * @param errorMessage a message for the client when refused, else null
 * @param memberId the member id (generated for a v0 join without one)
 * @param memberEpoch the member's epoch now (-1 or -2 after a leave)
 * @param heartbeatIntervalMs when to heartbeat next
 * @param assignment the partitions the member owns now, or null when unchanged since its last heartbeat
 */
public record ConsumerHeartbeatResult(
        GroupError error,
        String errorMessage,
        String memberId,
        int memberEpoch,
        int heartbeatIntervalMs,
        Assignment assignment) {

    public ConsumerHeartbeatResult {
        Objects.requireNonNull(error, "error");
    }

    static ConsumerHeartbeatResult failed(GroupError error, String message) {
        return new ConsumerHeartbeatResult(error, message, null, 0, 0, null);
    }
}
