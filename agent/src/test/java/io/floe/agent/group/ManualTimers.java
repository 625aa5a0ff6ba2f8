package io.floe.agent.group;

import io.floe.testkit.time.ManualClock;
import java.time.Clock;
import java.time.Instant;
import java.util.PriorityQueue;

/**
 * Virtual time for the coordinator: a clock that only moves when the test advances it, and timers
 * that fire, in due order, as it passes their deadlines. Single-threaded, no sleeps.
 */
final class ManualTimers implements TimerService {

    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private final ManualClock clock = new ManualClock(Instant.ofEpochMilli(1_700_000_000_000L));
    private long sequence;

    Clock clock() {
        return clock;
    }

    long nowMs() {
        return clock.millis();
    }

    @Override
    public Timeout schedule(long delayMs, Runnable action) {
        Task task = new Task(clock.millis() + delayMs, sequence++, action);
        tasks.add(task);
        return () -> tasks.remove(task);
    }

    /** Moves time forward by {@code ms}, running every timer that falls due, each at its own deadline. */
    void advance(long ms) {
        long target = clock.millis() + ms;
        while (!tasks.isEmpty() && tasks.peek().dueMs() <= target) {
            Task next = tasks.poll();
            clock.set(Instant.ofEpochMilli(Math.max(clock.millis(), next.dueMs())));
            next.action().run();
        }
        clock.set(Instant.ofEpochMilli(target));
    }

    int pending() {
        return tasks.size();
    }

    private record Task(long dueMs, long sequence, Runnable action) implements Comparable<Task> {
        @Override
        public int compareTo(Task other) {
            int byDue = Long.compare(dueMs, other.dueMs);
            return byDue != 0 ? byDue : Long.compare(sequence, other.sequence);
        }
    }
}
