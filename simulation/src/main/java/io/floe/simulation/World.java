package io.floe.simulation;

import io.floe.core.concurrency.SuppressForbidden;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * The simulated world: virtual time, one queue of tasks, one seeded random source, one thread.
 *
 * <p>Every task of every simulated process (agent executors, clients, the network) sits in one queue,
 * ordered by due time with seeded tie-breaks, and runs on the caller's thread. Time only moves when
 * the world says so. The stores' fault decorators call {@link #await(long)} at each store call: the
 * call takes that long in virtual time, and tasks of other executors due meanwhile may run first,
 * nested on the stack (bounded depth). That is where interleavings happen: between any two store
 * calls of a task, as between two awaits of a real thread. Given the seed, the run is a pure function.
 */
final class World {

    /** Virtual time starts here, so timestamps look like real ones. */
    static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

    private static final int NESTING_MAX = 3;
    /** More steps or queued tasks than any sane run makes: the run is stuck in a loop. */
    private static final long STEPS_MAX = 1_500_000;

    private static final int QUEUE_MAX = 200_000;

    private final long seed;
    private final Random random;
    private final PriorityQueue<Task> queue = new PriorityQueue<>(Comparator.comparingLong(Task::due)
            .thenComparingLong(Task::scheduledDue)
            .thenComparingLong(Task::order)
            .thenComparingLong(Task::sequence));
    private final Thread thread = Thread.currentThread();
    private final Clock clock = new VirtualClock();
    private final List<Task> running = new ArrayList<>();
    private long now;
    private long sequence;
    private long steps;
    private final List<String> uncaught = new ArrayList<>();
    private final String[] recent = new String[16];
    private long fingerprint;
    /** When not null, one line per step: for finding what made two runs of a seed differ. */
    static List<String> trace;

    /** The run went into a loop (no progress of virtual time, or tasks without end). */
    static final class Runaway extends RuntimeException {
        Runaway(String message) {
            super(message);
        }
    }

    /**
     * A task due at {@code due} virtual nanoseconds. A task of a paused process is due when the pause
     * ends; {@code scheduledDue}, when it was due first, keeps the process's tasks in their order then.
     */
    record Task(long due, long scheduledDue, long order, long sequence, SimExecutor owner, Runnable body) {

        Task dueAt(long when) {
            return new Task(when, scheduledDue, order, sequence, owner, body);
        }
    }

    @SuppressForbidden("the simulation's one source of randomness, seeded so that a run replays")
    World(long seed) {
        this.seed = seed;
        this.random = new Random(mix(seed));
    }

    /**
     * SplitMix64's finalizer: java.util.Random's first draws from consecutive seeds are nearly equal,
     * which would make a range of seeds one run many times over.
     */
    private static long mix(long seed) {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    long seed() {
        return seed;
    }

    /**
     * A draw of the seed apart from the random source: true for a share {@code probability} of seeds.
     * A run decides with it whether to add a part (transactions) without shifting the draws of the runs
     * that do not have it, so they replay as they did before the part existed.
     */
    boolean seedChance(long salt, double probability) {
        return (mix(seed ^ salt) >>> 11) * 0x1.0p-53 < probability;
    }

    Random random() {
        return random;
    }

    Clock clock() {
        return clock;
    }

    long nanoTime() {
        return now;
    }

    long millis() {
        return now / 1_000_000;
    }

    long steps() {
        return steps;
    }

    /** A hash of the schedule so far (when each task ran, on which executor): equal runs have equal ones. */
    long fingerprint() {
        return fingerprint;
    }

    /** Exceptions that escaped a task (a real executor would have printed and dropped them). */
    List<String> uncaught() {
        return uncaught;
    }

    boolean onWorldThread() {
        return Thread.currentThread() == thread;
    }

    void schedule(SimExecutor owner, long delayNanos, Runnable body) {
        long due = now + Math.max(0, delayNanos);
        queue.add(new Task(due, due, random.nextLong(), sequence++, owner, body));
    }

    /**
     * Runs the next task, advancing time to it. Returns false when no task is left. Tasks of dead
     * nodes are dropped; a task whose executor has no free thread (possible only while nested) waits.
     */
    boolean step() {
        Task task = pollRunnable(Long.MAX_VALUE);
        if (task == null) {
            return false;
        }
        run(task);
        return true;
    }

    /** Runs tasks until virtual time reaches {@code nanos} or nothing is left; then sets the time there. */
    void runUntil(long nanos, Runnable afterEachStep) {
        while (true) {
            Task next = peekRunnableBefore(nanos);
            if (next == null) {
                break;
            }
            step();
            afterEachStep.run();
        }
        now = Math.max(now, nanos);
    }

    /**
     * Moves time on by {@code nanos} with every process frozen (a whole cluster's VM pause, a host that
     * slept): nothing runs meanwhile, and every timer that fell due runs afterwards, in its order.
     * A quiet period of days costs nothing. Only between steps (nothing on the stack).
     */
    void jump(long nanos) {
        if (!running.isEmpty()) {
            throw new IllegalStateException("a jump in time must not happen inside a step");
        }
        now += nanos;
    }

    /**
     * While {@code node} is paused, the caller (one of its tasks, inside a store call) stays where it is:
     * other processes run meanwhile, as around a thread frozen by a VM pause.
     */
    void awaitResumed(Node node) {
        while (node.pausedUntil() > now) {
            await(node.pausedUntil() - now);
        }
    }

    /**
     * A store call of {@code latencyNanos}: tasks of other executors due before it completes may run
     * first (nested), then time moves to its end. Only on the world thread and below the nesting bound;
     * elsewhere the call simply takes no virtual time.
     */
    void await(long latencyNanos) {
        if (!onWorldThread()) {
            return;
        }
        long end = now + latencyNanos;
        if (running.size() < NESTING_MAX) {
            for (Task task = pollRunnable(end); task != null; task = pollRunnable(end)) {
                run(task);
            }
        }
        now = Math.max(now, end);
    }

    private Task peekRunnableBefore(long limit) {
        List<Task> skipped = new ArrayList<>();
        Task found = null;
        while (!queue.isEmpty()) {
            Task head = queue.peek();
            if (head.due() > limit) {
                break;
            }
            if (!head.owner().node().alive() || head.owner().isTerminated()) {
                queue.poll();
                continue;
            }
            long resumes = head.owner().node().pausedUntil();
            if (Math.max(now, head.due()) < resumes) {
                // Its process is paused: the task waits for the end of the pause, in its order.
                queue.poll();
                queue.add(head.dueAt(resumes));
                continue;
            }
            if (head.owner().hasFreeThread()) {
                found = head;
                break;
            }
            skipped.add(queue.poll());
        }
        queue.addAll(skipped);
        return found;
    }

    private Task pollRunnable(long limit) {
        Task task = peekRunnableBefore(limit);
        if (task != null) {
            queue.remove(task);
        }
        return task;
    }

    private void run(Task task) {
        now = Math.max(now, task.due());
        steps++;
        recent[(int) (steps % recent.length)] = task.owner().name();
        fingerprint = fingerprint * 31 + now * 17 + task.owner().name().hashCode();
        if (trace != null) {
            trace.add(steps + " t=" + now + " " + task.owner().name() + " "
                    + task.body().getClass().getName());
        }
        if (steps > STEPS_MAX || queue.size() > QUEUE_MAX) {
            throw new Runaway("the run is stuck: " + steps + " steps, " + queue.size() + " tasks queued at t="
                    + now / 1_000_000 + " ms; the last tasks ran on " + String.join(", ", recent));
        }
        running.add(task);
        task.owner().started();
        try {
            task.body().run();
        } catch (Runaway runaway) {
            throw runaway;
        } catch (SimulatedCrash crash) {
            // The process died inside this task: the stack unwinds here, as its threads would vanish.
        } catch (Throwable escaped) {
            if (uncaught.size() < 100) {
                uncaught.add(task.owner().name() + ": " + escaped);
            }
        } finally {
            task.owner().finished();
            running.remove(running.size() - 1);
        }
    }

    /** A uniformly random duration in [min, max] nanoseconds. */
    long between(long minNanos, long maxNanos) {
        return minNanos + (long) (random.nextDouble() * (maxNanos - minNanos));
    }

    boolean chance(double probability) {
        return probability > 0 && random.nextDouble() < probability;
    }

    private final class VirtualClock extends Clock {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("the simulation's clock is UTC");
        }

        @Override
        public Instant instant() {
            return EPOCH.plusNanos(now);
        }

        @Override
        public long millis() {
            return EPOCH.toEpochMilli() + now / 1_000_000;
        }
    }
}
