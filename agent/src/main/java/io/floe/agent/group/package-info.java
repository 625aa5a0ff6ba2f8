/**
 * Consumer groups under Kafka's classic rebalance protocol: the in-memory group state machine (join,
 * sync, heartbeat, leave, with rebalance and session timeouts and generation fencing) and the
 * committed offsets, which live in the metadata store so they outlive the agent. No Kafka wire
 * types here: requests and responses are plain values that the {@code kafka} module translates, and
 * {@link io.floe.agent.group.GroupError} names outcomes, not wire codes.
 */
package io.floe.agent.group;
