package io.floe.agent.group;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.PriorityQueue;

/**
 * Virtual time for the coordinator: a clock that only moves when the test advances it, and timers
 * that fire, in due order, as it passes their deadlines. Single-threaded, no sleeps.
 */
final class ManualTimers implements TimerService {

    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private final ManualClock clock = new ManualClock();
    private long sequence;

    Clock clock() {
        return clock;
    }

    long nowMs() {
        return clock.nowMs;
    }

    @Override
    public Timeout schedule(long delayMs, Runnable action) {
        Task task = new Task(clock.nowMs + delayMs, sequence++, action);
        tasks.add(task);
        return () -> tasks.remove(task);
    }

    /** Moves time forward by {@code ms}, running every timer that falls due, each at its own deadline. */
    void advance(long ms) {
        long target = clock.nowMs + ms;
        while (!tasks.isEmpty() && tasks.peek().dueMs() <= target) {
            Task next = tasks.poll();
            clock.nowMs = Math.max(clock.nowMs, next.dueMs());
            next.action().run();
        }
        clock.nowMs = target;
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

    private static final class ManualClock extends Clock {
        private long nowMs = 1_700_000_000_000L;

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("the manual clock is UTC only");
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(nowMs);
        }

        @Override
        public long millis() {
            return nowMs;
        }
    }
}
