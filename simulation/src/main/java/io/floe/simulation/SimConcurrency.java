package io.floe.simulation;

import io.floe.core.concurrency.Concurrency;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;

/**
 * The executors of one simulated process, all on the {@link World}'s thread, its virtual clocks and the
 * world's seeded randomness; a sleep is a wait in virtual time.
 */
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

    @Override
    public Clock clock() {
        return world.clock();
    }

    @Override
    public RandomGenerator random() {
        return world.random();
    }

    @Override
    public void sleep(Duration duration) {
        world.await(duration.toNanos());
    }
}
