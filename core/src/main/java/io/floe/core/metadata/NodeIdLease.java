package io.floe.core.metadata;

import java.time.Instant;
import java.util.Objects;

/**
 * The right of agent {@code agentId} to show clients the Kafka node id (broker id) {@code nodeId}
 * until {@code expiresAt}. The agent renews it with each membership heartbeat; when the agent dies
 * the lease runs out and the id can be taken again. {@code epoch} grows with every change of holder.
 */
public record NodeIdLease(int nodeId, String agentId, long epoch, Instant expiresAt) {

    public NodeIdLease {
        if (nodeId < 0) {
            throw new IllegalArgumentException("node id must be >= 0, got " + nodeId);
        }
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
