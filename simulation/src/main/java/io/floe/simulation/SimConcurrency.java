package io.floe.simulation;

import io.floe.core.concurrency.Concurrency;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

/** The executors of one simulated process, all on the {@link World}'s thread, and its virtual nanoTime. */
final class SimConcurrency implements Concurrency {

    private final World world;
    private final Node node;

    SimConcurrency(World world, Node node) {
        this.world = world;
        this.node = node;
    }

    @Override
    public ScheduledExecutorService scheduler(String name) {
        return new SimExecutor(world, node, name, 1);
    }

    @Override
    public ExecutorService pool(String name, int threads) {
        return new SimExecutor(world, node, name, threads);
    }

    @Override
    public long nanoTime() {
        return world.nanoTime();
    }
}
