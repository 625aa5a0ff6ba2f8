package io.floe.core.concurrency;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Where an agent's tasks run and how it measures durations: named daemon threads and
 * {@link System#nanoTime()} in production ({@link #threads()}), one seeded thread with virtual time in
 * the deterministic simulation. Every executor and every duration on the agent's data path and in its
 * background jobs comes from here, so a simulation run can replay a schedule exactly.
 */
public interface Concurrency {

    /** A scheduler running its tasks one at a time, on a thread named {@code name}. */
    ScheduledExecutorService scheduler(String name);

    /** An executor running up to {@code threads} tasks at once, on threads named {@code name}-N. */
    ExecutorService pool(String name, int threads);

    /** A monotonic time in nanoseconds, for durations only. */
    long nanoTime();

    /** Real threads and {@link System#nanoTime()}. */
    static Concurrency threads() {
        return Threaded.INSTANCE;
    }

    /** The production implementation. */
    enum Threaded implements Concurrency {
        INSTANCE;

        @Override
        public ScheduledExecutorService scheduler(String name) {
            return Executors.newSingleThreadScheduledExecutor(Threads.daemon(name));
        }

        @Override
        public ExecutorService pool(String name, int threads) {
            return threads == 1 ? Executors.newSingleThreadExecutor(Threads.daemon(name))
                    : Executors.newFixedThreadPool(threads, Threads.daemon(name));
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }
    }
}
