package io.floe.simulation;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link ScheduledExecutorService} of the simulation: its tasks go into the {@link World}'s queue and
 * run on the world's thread, at most {@code threads} at once (more than one only when tasks nest at
 * await points). Handing a task over takes a random few hundred microseconds, so the order of tasks
 * submitted together is the seed's choice. Blocking on a future that is not done cannot work on one
 * thread: it throws instead of deadlocking.
 */
final class SimExecutor extends AbstractExecutorService implements ScheduledExecutorService {

    private static final long HANDOVER_MAX_NANOS = 500_000;

    private final World world;
    private final Node node;
    private final String name;
    private final int threads;
    private int busy;
    private boolean shutdown;

    SimExecutor(World world, Node node, String name, int threads) {
        this.world = world;
        this.node = node;
        this.name = node.name() + "/" + name;
        this.threads = threads;
        node.register(this);
    }

    Node node() {
        return node;
    }

    String name() {
        return name;
    }

    boolean hasFreeThread() {
        return busy < threads;
    }

    void started() {
        busy++;
    }

    void finished() {
        busy--;
    }

    @Override
    public void execute(Runnable command) {
        submitAfter(world.between(0, HANDOVER_MAX_NANOS), command);
    }

    private void submitAfter(long delayNanos, Runnable command) {
        // A dead process's threads are gone: what it hands over is silently lost, as it would be.
        if (!shutdown && node.alive()) {
            world.schedule(this, delayNanos, command);
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return scheduleTask(Executors.callable(command, null), unit.toNanos(delay), 0);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return scheduleTask(callable, unit.toNanos(delay), 0);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return scheduleTask(Executors.callable(command, null), unit.toNanos(initialDelay), unit.toNanos(period));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return scheduleTask(Executors.callable(command, null), unit.toNanos(initialDelay), unit.toNanos(delay));
    }

    private <V> ScheduledFuture<V> scheduleTask(Callable<V> callable, long delayNanos, long periodNanos) {
        SimFuture<V> future = new SimFuture<>(callable, world.nanoTime() + delayNanos, periodNanos);
        submitAfter(delayNanos, future);
        return future;
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown || !node.alive();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }

    @Override
    public String toString() {
        return name;
    }

    /** A scheduled, possibly periodic task (fixed delay: the next run is due a period after this one ends). */
    private final class SimFuture<V> extends FutureTask<V> implements ScheduledFuture<V> {

        private final long periodNanos;
        private long due;

        SimFuture(Callable<V> callable, long due, long periodNanos) {
            super(callable);
            this.due = due;
            this.periodNanos = periodNanos;
        }

        @Override
        public void run() {
            if (periodNanos == 0) {
                super.run();
            } else if (runAndReset() && !isCancelled()) {
                due = world.nanoTime() + periodNanos;
                submitAfter(periodNanos, this);
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(due - world.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            requireDone();
            return super.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            requireDone();
            return super.get(timeout, unit);
        }

        private void requireDone() {
            if (!isDone()) {
                throw new IllegalStateException("would block the simulation's only thread: " + name);
            }
        }
    }
}
