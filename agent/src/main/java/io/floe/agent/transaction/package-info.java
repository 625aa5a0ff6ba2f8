/**
 * The transaction coordinator: Kafka's transaction operations checked at the agent's boundary and
 * applied as single operations of the metadata store's {@code Transactions} role, which holds every
 * transaction's state, so any agent serves any transactional id. Each agent aborts the expired
 * transactions of the transactional ids the cluster view routes to it.
 */
package io.floe.agent.transaction;
