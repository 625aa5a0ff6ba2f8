/** Decorators that meter the seams: object-store requests by kind, bytes and latency. */
package io.floe.agent.metering;
