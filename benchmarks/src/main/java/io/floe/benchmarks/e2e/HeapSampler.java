package io.floe.benchmarks.e2e;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples a process's used heap on a fixed period and keeps the peak. Used heap includes garbage not yet collected,
 * so the peak is bounded by the heap size the JVM chose, not by the live set.
 */
final class HeapSampler implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(HeapSampler.class);
    static final Duration PERIOD = Duration.ofMillis(500);

    /** Reads the process's used heap once; throws when the process cannot be reached. */
    @FunctionalInterface
    interface Probe {
        long heapUsedBytes() throws Exception;
    }

    private final String label;
    private final Probe probe;
    private final ScheduledExecutorService scheduler;
    private final AtomicLong peakBytes = new AtomicLong(-1);
    private final AtomicLong samples = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<String> lastError = new AtomicReference<>("");

    HeapSampler(String label, Probe probe) {
        this.label = label;
        this.probe = probe;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "heap-sampler-" + label);
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(this::sample, 0, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sample() {
        try {
            long used = probe.heapUsedBytes();
            peakBytes.accumulateAndGet(used, Math::max);
            samples.incrementAndGet();
        } catch (Exception e) {
            failures.incrementAndGet();
            lastError.set(e.toString());
        }
    }

    /** Peak used heap over the successful samples so far; empty when none succeeded. */
    OptionalLong peakBytes() {
        long peak = peakBytes.get();
        return peak < 0 ? OptionalLong.empty() : OptionalLong.of(peak);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOGGER.info(
                "heap sampling ended system={} samples={} failures={} peakBytes={} lastError={}",
                label,
                samples.get(),
                failures.get(),
                peakBytes.get(),
                lastError.get());
    }
}
