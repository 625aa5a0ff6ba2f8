package io.floe.simulation;

/**
 * Thrown into the code of an agent the simulation has just killed, to unwind it to the task boundary.
 * An {@link Error}, so that the product code's {@code catch (RuntimeException)} blocks do not take it
 * for a store failure and go on acting for a dead process.
 */
final class SimulatedCrash extends Error {

    SimulatedCrash(Node node) {
        super("simulated crash of " + node, null, false, false);
    }
}
