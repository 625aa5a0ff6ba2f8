package io.floe.agent.cluster;

import io.floe.core.metadata.NodeIdLease;
import java.util.Objects;

/** The node id an agent was given is held by another live agent: the agent must not start with it. */
public final class NodeIdHeldException extends RuntimeException {

    private final NodeIdLease holder;

    public NodeIdHeldException(String agentId, NodeIdLease holder) {
        super("node id " + holder.nodeId() + " is held by agent " + holder.agentId() + " (its lease runs until "
                + holder.expiresAt() + " and is renewed by each of its heartbeats), so agent " + agentId
                + " cannot use it: stop that agent, or start this one with another --node-id, or without"
                + " --node-id to have a free id allocated");
        this.holder = Objects.requireNonNull(holder, "holder");
    }

    /** The lease of the agent that holds the id. */
    public NodeIdLease holder() {
        return holder;
    }
}
