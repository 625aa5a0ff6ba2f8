/**
 * Consumer groups: the coordinator for Kafka's classic rebalance protocol (join, sync, heartbeat,
 * leave, with rebalance and session timeouts and generation fencing) and for the consumer protocol
 * of KIP-848 (ConsumerGroupHeartbeat with server-side assignment, whose group state, assignors and
 * reconciliation live in {@link io.floe.agent.group.consumer}), one in-memory group per id of either
 * kind, and the committed offsets, which live in the metadata store so they outlive the agent, as do
 * the members recorded with each group's coordinator lease, from which the next coordinator takes the
 * group over. No
 * Kafka wire types here: requests and responses are plain values that the {@code kafka} module
 * translates, and {@link io.floe.agent.group.GroupError} names outcomes, not wire codes.
 */
package io.floe.agent.group;
