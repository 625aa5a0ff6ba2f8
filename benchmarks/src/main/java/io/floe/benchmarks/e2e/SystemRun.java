package io.floe.benchmarks.e2e;

import java.util.List;
import java.util.OptionalLong;

/**
 * Everything measured on one system in one round.
 *
 * @param produce the saturation run: ProducerPerformance unthrottled
 * @param latency the steady-rate run: ProducerPerformance at {@code --latency-rate}, after the consumers
 * @param peakHeapBytes the largest used heap sampled during the run, garbage included
 * @param liveHeap the used heap after a full GC at the end of each phase
 */
record SystemRun(
        int round,
        String label,
        Outcome<ProducerSummary> produce,
        Outcome<ConsumerSummary> groupConsume,
        Outcome<ConsumerSummary> assignConsume,
        Outcome<ProducerSummary> latency,
        OptionalLong peakHeapBytes,
        LiveHeap liveHeap,
        long peakRssBytes,
        List<String> notes) {

    static SystemRun failedToStart(int round, String label, String reason) {
        return new SystemRun(
                round,
                label,
                Outcome.failed("did not start: " + reason),
                Outcome.skipped("not started"),
                Outcome.skipped("not started"),
                Outcome.skipped("not started"),
                OptionalLong.empty(),
                LiveHeap.notMeasured(),
                0,
                List.of());
    }

    /** The driver itself failed mid-run; the figures of this run are lost, the other runs go on. */
    static SystemRun driverError(int round, String label, RuntimeException error) {
        return new SystemRun(
                round,
                label,
                Outcome.failed("driver error: " + error),
                Outcome.skipped("driver error"),
                Outcome.skipped("driver error"),
                Outcome.skipped("driver error"),
                OptionalLong.empty(),
                LiveHeap.notMeasured(),
                0,
                List.of());
    }
}
