/**
 * Where Floe's tasks run and how they measure durations ({@link io.floe.core.concurrency.Concurrency}):
 * real named threads in production, one seeded thread with virtual time in the simulation. The agent,
 * maintenance and tableflow all take it, so a simulation run replays a schedule exactly.
 */
package io.floe.core.concurrency;
