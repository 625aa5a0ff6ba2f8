package io.floe.benchmarks.e2e;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The final summary line of Kafka's {@code ProducerPerformance}, e.g.
 * {@code 2000000 records sent, 15397.644160 records/sec (15.04 MB/sec), 1324.07 ms avg latency,
 * 2859.00 ms max latency, 1372 ms 50th, 1854 ms 95th, 2029 ms 99th, 2221 ms 99.9th.}
 * With {@code --warmup-records} the tool prints a second line, {@code N steady state records sent, ...}, that
 * leaves the warm-up out; that one is preferred.
 */
record ProducerSummary(
        long records,
        boolean steadyState,
        double recordsPerSec,
        double megabytesPerSec,
        double avgLatencyMs,
        double maxLatencyMs,
        long p50Ms,
        long p95Ms,
        long p99Ms,
        long p999Ms) {

    private static final Pattern SUMMARY =
            Pattern.compile("^(\\d+)( steady state)? records sent, ([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), "
                    + "([\\d.]+) ms avg latency, ([\\d.]+) ms max latency, (\\d+) ms 50th, (\\d+) ms 95th, "
                    + "(\\d+) ms 99th, (\\d+) ms 99\\.9th\\.$");

    /** The steady-state summary if the output has one, else the overall summary; empty when there is neither. */
    static Optional<ProducerSummary> parse(List<String> outputLines) {
        Optional<ProducerSummary> overall = Optional.empty();
        for (String line : outputLines) {
            Matcher m = SUMMARY.matcher(line.strip());
            if (!m.matches()) {
                continue;
            }
            ProducerSummary summary = of(m);
            if (summary.steadyState()) {
                return Optional.of(summary);
            }
            overall = Optional.of(summary);
        }
        return overall;
    }

    private static ProducerSummary of(Matcher m) {
        return new ProducerSummary(
                Long.parseLong(m.group(1)),
                m.group(2) != null,
                Double.parseDouble(m.group(3)),
                Double.parseDouble(m.group(4)),
                Double.parseDouble(m.group(5)),
                Double.parseDouble(m.group(6)),
                Long.parseLong(m.group(7)),
                Long.parseLong(m.group(8)),
                Long.parseLong(m.group(9)),
                Long.parseLong(m.group(10)));
    }
}
