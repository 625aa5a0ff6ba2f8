/**
 * Consumer groups' durable state as the metadata store keeps it: the offsets each group committed
 * per partition, and the members its coordinator recorded with its lease. Rebalancing lives in the
 * agent's memory; the recorded members let the next coordinator take the group over.
 */
package io.floe.core.group;
