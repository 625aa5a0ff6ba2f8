/**
 * Lease expiry: the job leases no agent has held for a week (tables of deleted or disabled topics, node
 * ids of a cluster that shrank, jobs of earlier versions) and the membership rows of agents silent for a
 * day (killed without a clean shutdown) are forgotten, so that these tables hold what runs now, not
 * everything that ever ran. Group coordinator leases are forgotten by the agents' offset retention sweep.
 */
package io.floe.maintenance.leases;
