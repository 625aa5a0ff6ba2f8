/**
 * The consumer group protocol of KIP-848, without I/O, locks of its own beyond a group's, or timers:
 * the state of one group (members with their epochs, the group epoch, the target assignment and
 * who owns which partition now), the server-side assignors that compute the target, and the
 * reconciliation that moves each member towards it, revoking a partition from its owner before
 * any other member is given it. Partitions are named by topic id, as on the wire. The coordinator
 * in {@code io.floe.agent.group} drives these with requests, timeouts and topic metadata.
 */
package io.floe.agent.group.consumer;
