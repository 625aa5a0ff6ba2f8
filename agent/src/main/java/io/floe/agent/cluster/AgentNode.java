package io.floe.agent.cluster;

/** An agent as clients see it: a broker id and the address they connect to. */
public record AgentNode(int nodeId, String host, int port) {}
