/**
 * Kafka transactions as the metadata store keeps them: each transactional id's producer, epoch and
 * state, the partitions and offsets of its open transaction, and the outcomes of the store's
 * transaction operations. The store applies each operation in one metadata transaction, so any
 * agent can serve any transactional id: there is no coordinator state outside the store.
 */
package io.floe.core.transaction;
