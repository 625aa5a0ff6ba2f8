package io.floe.core.concurrency;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;

/**
 * Where an agent's tasks run, how it measures time and where its randomness comes from: named daemon
 * threads, the system clocks and a secure random source in production ({@link #threads()}), one seeded
 * thread with virtual time and a seeded generator in the deterministic simulation. Every executor,
 * duration, wait and random draw of the product comes from here, so a simulation run can replay a
 * schedule exactly; the build's banned-API check ({@code build-rules/forbidden-apis.txt}) allows the
 * real sources only in {@link Threaded}.
 */
public interface Concurrency {

    /** A scheduler running its tasks one at a time, on a thread named {@code name}. */
    ScheduledExecutorService scheduler(String name);

    /** An executor running up to {@code threads} tasks at once, on threads named {@code name}-N. */
    ExecutorService pool(String name, int threads);

    /** A monotonic time in nanoseconds, for durations only. */
    long nanoTime();

    /** The wall clock, in UTC. */
    Clock clock();

    /** Random draws (ids, jitter); safe to use from many threads. */
    RandomGenerator random();

    /** Blocks the calling thread for {@code duration} (a retry's back-off on a thread of its own). */
    void sleep(Duration duration) throws InterruptedException;

    /** A random (version 4) UUID drawn from {@link #random()}. */
    default UUID randomUuid() {
        RandomGenerator random = random();
        long high = (random.nextLong() & ~0xF000L) | 0x4000L;
        long low = (random.nextLong() & ~(0x3L << 62)) | (0x2L << 62);
        return new UUID(high, low);
    }

    /** Real threads and {@link System#nanoTime()}. */
    static Concurrency threads() {
        return Threaded.INSTANCE;
    }

    /** The production implementation: the one home of real threads, time and randomness. */
    @SuppressForbidden("the production source of threads, time and randomness")
    enum Threaded implements Concurrency {
        INSTANCE;

        private static final RandomGenerator RANDOM = new SecureRandom();

        @Override
        public ScheduledExecutorService scheduler(String name) {
            return Executors.newSingleThreadScheduledExecutor(Threads.daemon(name));
        }

        @Override
        public ExecutorService pool(String name, int threads) {
            return threads == 1
                    ? Executors.newSingleThreadExecutor(Threads.daemon(name))
                    : Executors.newFixedThreadPool(threads, Threads.daemon(name));
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public Clock clock() {
            return Clock.systemUTC();
        }

        @Override
        public RandomGenerator random() {
            return RANDOM;
        }

        @Override
        public void sleep(Duration duration) throws InterruptedException {
            Thread.sleep(duration.toMillis());
        }
    }
}
