/**
 * Deterministic simulation of Floe (issue 7, part 2): the real agent, maintenance and Tableflow code,
 * run by one seeded thread in virtual time ({@link io.floe.simulation.World}), on fault-injecting
 * decorators of the object store and the metadata store, with crashes and restarts of agents at any
 * await point, and an invariant checker after every step. A seed replays its run exactly.
 */
package io.floe.simulation;
