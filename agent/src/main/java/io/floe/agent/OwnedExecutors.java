package io.floe.agent;

import io.floe.core.concurrency.Concurrency;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;

/**
 * The agent's {@link Concurrency}: remembers every executor it hands out, so that an agent whose start
 * failed halfway stops all that its parts had begun (a timeout loop, a lease thread) rather than leave
 * them running beside the agent started next.
 */
final class OwnedExecutors implements Concurrency {

    private final Concurrency delegate;
    private final List<ExecutorService> executors = new CopyOnWriteArrayList<>();

    OwnedExecutors(Concurrency delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public ScheduledExecutorService scheduler(String name) {
        return owned(delegate.scheduler(name));
    }

    @Override
    public ExecutorService pool(String name, int threads) {
        return owned(delegate.pool(name, threads));
    }

    @Override
    public long nanoTime() {
        return delegate.nanoTime();
    }

    @Override
    public Clock clock() {
        return delegate.clock();
    }

    @Override
    public RandomGenerator random() {
        return delegate.random();
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        delegate.sleep(duration);
    }

    /** The executors handed out so far. */
    List<ExecutorService> executors() {
        return List.copyOf(executors);
    }

    /** Stops every executor handed out, without waiting for running tasks. */
    void shutdownNow() {
        executors.forEach(ExecutorService::shutdownNow);
    }

    private <E extends ExecutorService> E owned(E executor) {
        executors.add(executor);
        return executor;
    }
}
