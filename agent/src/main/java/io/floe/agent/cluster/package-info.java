/** Which agents are alive and which of them serves each partition and group. */
package io.floe.agent.cluster;
