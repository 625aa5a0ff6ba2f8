package io.floe.benchmarks.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Latencies in whole milliseconds, counted exactly per millisecond up to {@link #BUCKETS_MAX_MS} (higher values count
 * in the last bucket; the maximum is kept exactly). Small enough to keep one per producer, exact enough for p99.9,
 * and mergeable: the load tools write theirs to a file ({@link #write}) and the driver adds them up. Not thread-safe:
 * one writer (a producer's I/O thread calling its callbacks), read after it stopped.
 */
final class LatencyHistogram {

    static final int BUCKETS_MAX_MS = 120_000;

    private final long[] counts = new long[BUCKETS_MAX_MS + 1];
    private long total;
    private long maxMs;

    void record(long millis) {
        long ms = Math.max(0, millis);
        counts[(int) Math.min(ms, BUCKETS_MAX_MS)]++;
        total++;
        maxMs = Math.max(maxMs, ms);
    }

    void add(LatencyHistogram other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        maxMs = Math.max(maxMs, other.maxMs);
    }

    long count() {
        return total;
    }

    long maxMs() {
        return maxMs;
    }

    /** The smallest latency at or below which a fraction {@code q} of the values lie (nearest rank); 0 when empty. */
    long percentileMs(double q) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int ms = 0; ms < counts.length; ms++) {
            seen += counts[ms];
            if (seen >= rank) {
                return ms == BUCKETS_MAX_MS ? maxMs : ms;
            }
        }
        return maxMs;
    }

    /** One line per non-empty bucket, {@code MS COUNT}, then {@code max MS}. */
    List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (int ms = 0; ms < counts.length; ms++) {
            if (counts[ms] > 0) {
                lines.add(ms + " " + counts[ms]);
            }
        }
        lines.add("max " + maxMs);
        return lines;
    }

    static LatencyHistogram parse(List<String> lines) {
        LatencyHistogram histogram = new LatencyHistogram();
        for (String line : lines) {
            String[] parts = line.strip().split("\\s+");
            if (parts.length != 2) {
                continue;
            }
            if (parts[0].equals("max")) {
                histogram.maxMs = Math.max(histogram.maxMs, Long.parseLong(parts[1]));
                continue;
            }
            int ms = Integer.parseInt(parts[0]);
            long count = Long.parseLong(parts[1]);
            histogram.counts[Math.min(ms, BUCKETS_MAX_MS)] += count;
            histogram.total += count;
            histogram.maxMs = Math.max(histogram.maxMs, ms);
        }
        return histogram;
    }

    void write(Path file) throws IOException {
        Files.write(file, lines());
    }

    static LatencyHistogram read(Path file) throws IOException {
        return parse(Files.readAllLines(file));
    }
}
