package io.floe.benchmarks.tableflow;

import io.floe.core.topic.Topic;
import io.floe.tableflow.table.Watermark;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The table's lag at a steady produce rate: records are produced at {@code recordsPerSecond} for {@code seconds}
 * into a one-partition append topic with a {@code commitIntervalMs} commit interval; every 50 ms the table's
 * watermark is read and the age of the oldest record not yet in the table is sampled. The first fifth of the
 * samples is warm-up.
 */
final class Lag {

    private Lag() {}

    static String run(double recordsPerSecond, long commitIntervalMs, int seconds) throws Exception {
        try (InProcessFloe floe = InProcessFloe.start()) {
            Topic topic = floe.createTopic("steady", 1, new Variant("append", false).configs(commitIntervalMs));
            long t0 = System.nanoTime();
            long produced = 0;
            List<Double> lags = new ArrayList<>();
            long nextSample = t0;
            long end = t0 + seconds * 1_000_000_000L;
            while (System.nanoTime() < end) {
                long due = (long) ((System.nanoTime() - t0) / 1e9 * recordsPerSecond);
                if (due > produced) {
                    floe.produce(topic, produced, due - produced, id -> EventRecords.key(id, 1000));
                    produced = due;
                }
                if (System.nanoTime() >= nextSample) {
                    long materialized = floe.tables().load("steady").flatMap(Watermark::of)
                            .map(mark -> mark.next(0)).orElse(0L);
                    // Record n was produced at t0 + n / rate: the oldest record missing from the table is that old.
                    double oldestMissing = materialized / recordsPerSecond;
                    double now = (System.nanoTime() - t0) / 1e9;
                    lags.add(materialized >= produced ? 0.0 : Math.max(0, now - oldestMissing));
                    nextSample += 50_000_000L;
                }
                Thread.sleep(2);
            }
            Collections.sort(lags);
            List<Double> steady = lags.subList(lags.size() / 5, lags.size());
            return String.format(Locale.ROOT, "lag at %.0f records/s, commitIntervalMs=%d: p50=%.2f s p99=%.2f s"
                            + " max=%.2f s (target < %.1f s = 2 commit intervals) samples=%d load=%s",
                    recordsPerSecond, commitIntervalMs, percentile(steady, 0.5), percentile(steady, 0.99),
                    steady.get(steady.size() - 1), 2 * commitIntervalMs / 1000.0, steady.size(), Cpu.load());
        }
    }

    private static double percentile(List<Double> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) (q * sorted.size())));
    }
}
