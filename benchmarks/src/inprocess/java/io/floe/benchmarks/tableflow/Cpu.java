package io.floe.benchmarks.tableflow;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Locale;

/** CPU time of this JVM, of its threads, and the machine's load, for the in-process drivers. */
final class Cpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private Cpu() {}

    /**
     * The one Tableflow thread ({@code floe-tableflow-N}; the change streams' {@code floe-tableflow-changes-*}
     * threads are others). Fails when there is none or more than one: a driver runs one Tableflow at a time.
     */
    static Thread tableflowThread() {
        List<Thread> found = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().matches("floe-tableflow-\\d+"))
                .toList();
        if (found.size() != 1) {
            throw new IllegalStateException("expected one floe-tableflow-N thread, found " + found.stream()
                    .map(Thread::getName).toList() + " (was the Tableflow thread renamed?)");
        }
        return found.get(0);
    }

    /**
     * The Tableflow thread is quiet once it used less than this much CPU in {@link #QUIET_NANOS}: a tenth of a core.
     * Polling for due tables (every 100 ms here) costs it about a third of a millisecond a poll when idle.
     */
    private static final long QUIET_CPU_NANOS = 50_000_000L;

    private static final long QUIET_NANOS = 500_000_000L;

    /**
     * Waits until {@code thread} has been quiet for half a second; returns when it last worked (nanoTime) and its
     * CPU time then.
     */
    static long[] awaitQuiet(Thread thread) throws InterruptedException {
        long lastBusy = System.nanoTime();
        long busyCpu = threadNanos(thread);
        while (System.nanoTime() - lastBusy < QUIET_NANOS) {
            Thread.sleep(50);
            long cpu = threadNanos(thread);
            if (cpu - busyCpu > QUIET_CPU_NANOS) {
                lastBusy = System.nanoTime();
                busyCpu = cpu;
            }
        }
        return new long[] {lastBusy, busyCpu};
    }

    /** CPU time of {@code thread} in nanoseconds. */
    static long threadNanos(Thread thread) {
        return THREADS.getThreadCpuTime(thread.getId());
    }

    /** CPU time of the calling thread in nanoseconds. */
    static long currentThreadNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** CPU time of this whole process (every thread, GC and JIT included) in nanoseconds. */
    static long processNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** The one-minute load average, as {@code 3.45}. */
    static String load() {
        return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    static double loadValue() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
