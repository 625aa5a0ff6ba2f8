package io.floe.simulation;

import java.util.ArrayList;
import java.util.List;

/**
 * One process of the simulated system: an agent incarnation, or the clients, or the network (which
 * delivers writes late). When an agent node dies, its tasks are dropped and its stores refuse it: a
 * dead process does nothing more.
 */
final class Node {

    private final String name;
    private final boolean mortal;
    private final List<SimExecutor> executors = new ArrayList<>();
    private boolean alive = true;
    private long pausedUntil;

    Node(String name, boolean mortal) {
        this.name = name;
        this.mortal = mortal;
    }

    String name() {
        return name;
    }

    boolean alive() {
        return alive;
    }

    boolean mortal() {
        return mortal;
    }

    void register(SimExecutor executor) {
        executors.add(executor);
    }

    /** The process dies: nothing it scheduled runs any more. */
    void kill() {
        if (!mortal) {
            throw new IllegalStateException(name + " cannot die");
        }
        alive = false;
    }

    /**
     * The process is frozen (a VM pause, a long GC) until virtual time {@code until}: none of its tasks
     * runs before then, and a store call it is in stays where it is. It believes nothing happened.
     */
    void pauseUntil(long until) {
        pausedUntil = Math.max(pausedUntil, until);
    }

    /** The virtual time a pause ends; in the past when the process is not paused. */
    long pausedUntil() {
        return pausedUntil;
    }

    /** Throws {@link SimulatedCrash} when this node is dead: for code still on the stack of a killed process. */
    void checkAlive() {
        if (!alive) {
            throw new SimulatedCrash(this);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
