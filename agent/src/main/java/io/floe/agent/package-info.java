/**
 * The stateless agent: the produce pipeline (buffer, upload, commit, acknowledge), the fetch path
 * (partition index, range reads, long poll), the object cache and the cluster view. No Kafka wire
 * types here; the {@code kafka} module translates at the edge.
 */
package io.floe.agent;
