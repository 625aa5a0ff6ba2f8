package io.floe.agent.cluster;

import io.floe.core.metadata.AgentMembership;
import io.floe.core.metadata.NodeIdClaim;
import io.floe.core.metadata.NodeIdLease;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an agent gets its Kafka node id (broker id) at start: a given id is claimed from the metadata
 * store, otherwise the store allocates the lowest free one. Either way the agent holds it under a
 * lease that its membership heartbeat renews ({@link Membership}), so two live agents never show
 * clients one id, and an id whose agent died is free again once its lease runs out.
 */
public final class NodeIds {

    /** An id nobody renews is free again after this long: the membership's own liveness timeout. */
    public static final Duration LEASE_TTL = Membership.HEARTBEAT_TIMEOUT;
    /** {@code nodeId} of an agent that has the store allocate its id. */
    public static final int ALLOCATED = -1;

    private static final Logger LOGGER = LoggerFactory.getLogger(NodeIds.class);

    private NodeIds() {}

    /**
     * The lease on {@code nodeId} (or on an allocated id when it is {@link #ALLOCATED}) for
     * {@code agentId}.
     *
     * @throws NodeIdHeldException when the given id is held by another agent's running lease
     */
    public static NodeIdLease obtain(AgentMembership metadata, int nodeId, String agentId, Clock clock) {
        if (nodeId == ALLOCATED) {
            NodeIdLease lease = metadata.allocateNodeId(agentId, clock.instant(), LEASE_TTL);
            LOGGER.info("Allocated node id agentId={} nodeId={} epoch={}", agentId, lease.nodeId(), lease.epoch());
            return lease;
        }
        NodeIdClaim claim = metadata.claimNodeId(nodeId, agentId, clock.instant(), LEASE_TTL);
        if (claim instanceof NodeIdClaim.Held held) {
            throw new NodeIdHeldException(agentId, held.holder());
        }
        return ((NodeIdClaim.Granted) claim).lease();
    }
}
