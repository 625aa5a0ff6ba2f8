package io.floe.agent.transaction;

import io.floe.testkit.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler on virtual time: tasks run on the test's thread when {@link #advanceTo} moves the clock
 * past their time, in time order. Supports what the timeout loop uses (one-shot and fixed-delay tasks).
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final ManualClock clock;
    private final PriorityQueue<Task> tasks =
            new PriorityQueue<>(Comparator.comparing(Task::due).thenComparingLong(Task::order));
    private long order;
    private boolean shutdown;

    ManualScheduler(ManualClock clock) {
        this.clock = clock;
    }

    /** Runs every task due up to {@code time}, each with the clock at its own time, then sets the clock there. */
    void advanceTo(Instant time) {
        while (!tasks.isEmpty() && !tasks.peek().due().isAfter(time)) {
            Task task = tasks.poll();
            clock.set(task.due());
            if (!task.cancelled) {
                task.body.run();
                if (task.repeatEvery != null && !task.cancelled) {
                    task.due = clock.instant().plus(task.repeatEvery);
                    task.order = order++;
                    add(task);
                }
            }
        }
        clock.set(time);
    }

    void advanceBy(Duration duration) {
        advanceTo(clock.instant().plus(duration));
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(new Task(clock.instant().plusNanos(unit.toNanos(delay)), order++, command, null));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return add(new Task(
                clock.instant().plusNanos(unit.toNanos(initialDelay)),
                order++,
                command,
                Duration.ofNanos(unit.toNanos(delay))));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return scheduleWithFixedDelay(command, initialDelay, period, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the code under test");
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public void shutdown() {
        shutdown = true;
        tasks.clear();
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown();
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }

    private Task add(Task task) {
        if (!shutdown) {
            tasks.add(task);
        }
        return task;
    }

    private final class Task implements ScheduledFuture<Object> {

        private Instant due;
        private long order;
        private final Runnable body;
        private final Duration repeatEvery;
        private boolean cancelled;

        Task(Instant due, long order, Runnable body, Duration repeatEvery) {
            this.due = due;
            this.order = order;
            this.body = body;
            this.repeatEvery = repeatEvery;
        }

        Instant due() {
            return due;
        }

        long order() {
            return order;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(Duration.between(clock.instant(), due));
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return cancelled;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("not used by the code under test");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("not used by the code under test");
        }
    }
}
