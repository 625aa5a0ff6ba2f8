package io.floe.simulation;

import java.util.function.Supplier;

/**
 * The life of one store call of a simulated process, shared by both store decorators: the request
 * travels (virtual latency; other tasks may run meanwhile), the process may die or the call fail
 * before it applies, it applies, the process may die or the response be lost after it applied, the
 * response travels back. A process that died meanwhile never sees the response.
 */
final class StoreCalls {

    private final World world;
    private final Node node;
    private final Faults faults;

    StoreCalls(World world, Node node, Faults faults) {
        this.world = world;
        this.node = node;
        this.faults = faults;
    }

    World world() {
        return world;
    }

    Node node() {
        return node;
    }

    Faults faults() {
        return faults;
    }

    /**
     * Runs {@code operation} as a store call. {@code mutates}: the call changes the store, so a
     * response lost after it applied matters; {@code lostResponse} supplies what the caller then sees
     * (an exception to throw, or null for {@code onLostResponse}'s value).
     */
    <T> T call(boolean mutates, Supplier<T> operation, Supplier<RuntimeException> failure, Supplier<T> onLostResponse) {
        node.checkAlive();
        if (!world.onWorldThread()) {
            return operation.get(); // a library's worker thread (Iceberg): no faults, no interleaving
        }
        world.await(faults.latencyNanos());
        world.awaitResumed(node);
        node.checkAlive();
        if (node.mortal() && faults.crashBefore()) {
            node.kill();
            node.checkAlive();
        }
        if (faults.failBefore()) {
            throw failure.get();
        }
        T result = operation.get();
        if (mutates && node.mortal() && faults.crashAfter()) {
            node.kill();
            node.checkAlive();
        }
        world.await(world.between(50_000L, 1_000_000L));
        world.awaitResumed(node);
        node.checkAlive();
        if (mutates && faults.failAfter()) {
            if (onLostResponse != null) {
                return onLostResponse.get();
            }
            throw failure.get();
        }
        return result;
    }
}
