package io.floe.core.metadata;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The metadata role of the cluster's membership: agents' heartbeats and the node ids they hold under
 * leases (DESIGN §8, fencing of coordinators). Follows the {@linkplain io.floe.core.metadata package
 * contract}; every write here is idempotent (a renewal by the holder is the same lease).
 */
public interface AgentMembership {

    /**
     * Records a heartbeat of {@code registration.agentId()}: inserts the agent, or replaces its
     * address, rack and heartbeat time. Agents call it periodically; every agent's store sees it.
     */
    void heartbeatAgent(AgentRegistration registration);

    /**
     * {@link #heartbeatAgent(AgentRegistration)} and the renewal of the agent's node id lease
     * ({@code registration.nodeId()}, for {@code ttl} from the heartbeat time) in one transaction: the
     * membership heartbeat keeps the id. When another agent holds the id (this agent's lease ran out
     * while it was paused, and the id was taken), records nothing and answers {@link NodeIdClaim.Held}.
     */
    NodeIdClaim heartbeatAgent(AgentRegistration registration, Duration ttl);

    /**
     * The agents whose last heartbeat is after {@code heartbeatAfter}, sorted by agent id. Heartbeat
     * times come from each agent's clock, so callers leave a margin for clock skew.
     */
    List<AgentRegistration> liveAgents(Instant heartbeatAfter);

    /** Removes the agent from the membership (on a clean shutdown); returns whether it was registered. */
    boolean removeAgent(String agentId);

    /**
     * Removes up to {@code max} agents whose last heartbeat is before {@code heartbeatBefore}, oldest
     * first: agents killed without a clean shutdown. Returns how many. An agent that heartbeats again
     * is registered afresh.
     */
    int expireAgents(Instant heartbeatBefore, int max);

    /**
     * Takes the lowest node id that no running lease holds, for {@code agentId} until {@code now + ttl}.
     * When {@code agentId} already holds a live lease on an id, that lease is renewed and returned. Two
     * agents allocating at once get different ids; an id whose holder's lease ran out is taken again.
     */
    NodeIdLease allocateNodeId(String agentId, Instant now, Duration ttl);

    /**
     * Takes node id {@code nodeId} for {@code agentId} until {@code now + ttl}, or renews it when
     * {@code agentId} holds it already (at the same epoch while the lease ran; at a new one after it
     * ran out). {@link NodeIdClaim.Held} names the other agent while its lease runs.
     */
    NodeIdClaim claimNodeId(int nodeId, String agentId, Instant now, Duration ttl);

    /** Gives up {@code lease} early (a clean shutdown); does nothing when it is no longer held at that epoch. */
    void releaseNodeId(NodeIdLease lease);
}
