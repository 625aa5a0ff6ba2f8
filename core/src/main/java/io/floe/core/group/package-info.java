/**
 * Consumer groups' durable state as the metadata store keeps it: the offsets each group committed
 * per partition. Membership and rebalancing live in the agent's memory and are never stored.
 */
package io.floe.core.group;
