package io.floe.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ReportTest {

    @Test
    void spreadGivesMedianAndRange() {
        assertThat(Report.spread(List.of(1.0, 2.0, 10.0), "%.1f")).isEqualTo("2.0 [1.0–10.0]");
        assertThat(Report.spread(List.of(10.0, 1.0, 2.0), "%.1f")).isEqualTo("2.0 [1.0–10.0]");
        assertThat(Report.spread(List.of(1.0, 3.0), "%.2f")).isEqualTo("2.00 [1.00–3.00]");
        assertThat(Report.spread(List.of(4.0), "%.0f")).isEqualTo("4");
        assertThat(Report.spread(List.of(), "%.0f")).isEqualTo("n/a");
    }

    @Test
    void roundTableHasASteadyRateTable() {
        Report report = report(options(), runs(12, 30));
        String round = report.roundTable(1);
        assertThat(round)
                .contains(
                        "Steady rate, 5,000 records/s asked:",
                        "| system | steady rec/s | steady p50 ms | steady p99 ms | steady p99.9 ms | steady max ms |",
                        "| kafka | 4,999 | 3 | 12 | 20 | 25 |",
                        "| floe | 4,999 | 3 | 30 | 20 | 25 |");
    }

    @Test
    void summaryHasSteadyLatenciesAndJudgesTheTarget() {
        String md = report(options(), runs(12, 30, 10, 50)).markdown("cmd", "machine");
        assertThat(md)
                .contains(
                        "| system | produce MB/s | p50 ms | p99 ms | steady p50 ms | steady p99 ms | group consume MB/s |",
                        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                        "| kafka | 100.0 [100.0–100.0] | 200 [200–200] | 700 [700–700] | 3 [3–3] | 11 [10–12] | n/a |",
                        "| floe | 100.0 [100.0–100.0] | 200 [200–200] | 700 [700–700] | 3 [3–3] | 40 [30–50] | n/a |",
                        "| floe/kafka | 1.00 [1.00–1.00] | | | | | n/a | n/a | | | |\n",
                        "target: Floe steady p99 ≤ flush interval + 25 ms = 45 ms: met (median 40 ms over 2 round(s); "
                                + "flush interval 20 ms from the agent's default)",
                        "- steady: after the consumers, ProducerPerformance throttled to 5,000 records/s",
                        "- Steady-rate phase, after the consumers: 75,000 records at 5,000 records/s (~15 s) into topic "
                                + "`bench-latency` (6 partitions, same producer properties), figures over the last 60,000 "
                                + "(the first 15,000 warm the tool up).",
                        "its steady-state summary (after 15,000 warm-up records)");
        assertEveryTableRowHasItsHeadersCells(md);
    }

    @Test
    void targetIsMetUpToFlushIntervalPlusMarginAndNotAbove() {
        Report atLimit = report(options("--flush-interval-ms", "10"), runs(12, 30, 12, 40));
        assertThat(atLimit.target())
                .isEqualTo("target: Floe steady p99 ≤ flush interval + 25 ms = 35 ms: met "
                        + "(median 35 ms over 2 round(s); flush interval 10 ms from --flush-interval-ms)");
        Report above = report(options("--flush-interval-ms", "10"), runs(12, 30, 12, 50));
        assertThat(above.target())
                .isEqualTo("target: Floe steady p99 ≤ flush interval + 25 ms = 35 ms: not met "
                        + "(median 40 ms over 2 round(s); flush interval 10 ms from --flush-interval-ms)");
        Report unmeasured = report(
                options(),
                List.of(run(1, "kafka", Outcome.measured(summary(5_000, 9))), run(1, "floe", Outcome.failed("boom"))));
        assertThat(unmeasured.target())
                .isEqualTo("target: Floe steady p99 ≤ flush interval + 25 ms = 45 ms: " + "not measured");
    }

    @Test
    void noTargetLineWithKafkaOnly() {
        BenchmarkOptions options = options("--kafka-only");
        String md = new Report(
                        options,
                        "kafka",
                        "kafka-b",
                        List.of(),
                        List.of(
                                run(1, "kafka", Outcome.measured(summary(5_000, 9))),
                                run(1, "kafka-b", Outcome.measured(summary(5_000, 8)))),
                        Map.of())
                .markdown("cmd", "machine");
        assertThat(md).contains("| kafka-b | 5,000 | 3 | 8 | 20 | 25 |").doesNotContain("target:");
    }

    @Test
    void noSteadyPhaseLeavesTheReportAsBefore() {
        BenchmarkOptions options = options("--latency-rate", "0");
        List<SystemRun> runs = new ArrayList<>();
        for (String label : List.of("kafka", "floe")) {
            runs.add(run(1, label, Outcome.skipped("--latency-rate 0")));
        }
        String md = report(options, runs).markdown("cmd", "machine");
        assertThat(md)
                .doesNotContain("steady", "Steady", "target:", "bench-latency")
                .contains("| system | produce MB/s | p50 ms | p99 ms | group consume MB/s | assign consume MB/s "
                        + "| peak heap MiB (max) | live heap MiB (max) | peak RSS MiB (max) |\n"
                        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
                .contains("| system | after produce | after group consume | after assign consume | max |\n");
        assertEveryTableRowHasItsHeadersCells(md);
    }

    @Test
    void aSteadyPhaseBelowItsRateOrFailedIsNoted() {
        List<SystemRun> runs = List.of(
                run(1, "kafka", Outcome.failed("ProducerPerformance exited 1 without a summary")),
                run(1, "floe", Outcome.measured(summary(3_000, 900))),
                run(2, "kafka", Outcome.measured(summary(5_300, 900))),
                run(2, "floe", Outcome.measured(summary(5_200, 900))));
        String md = report(options(), runs).markdown("cmd", "machine");
        assertThat(md)
                .contains(
                        "| kafka | failed | failed | failed | failed | failed |",
                        "- round 1 kafka: steady phase: ProducerPerformance exited 1 without a summary",
                        "- round 1 floe: steady phase ran at 3,000 records/s, 5,000 asked: the system did not keep up, so "
                                + "its latencies include queueing.",
                        "- round 2 kafka: steady phase ran at 5,300 records/s, 5,000 asked: the tool sent a burst to catch up "
                                + "after a stall, so its latencies include queueing.",
                        "not met (median 900 ms over 2 round(s)")
                .doesNotContain("round 2 floe: steady");
    }

    @Test
    void liveHeapIsShownPerPhaseAndAsTheLargestNextToThePeak() {
        Map<LiveHeap.Phase, Outcome<Long>> kafka = Map.of(
                LiveHeap.Phase.PRODUCE, Outcome.measured(300L << 20),
                LiveHeap.Phase.GROUP_CONSUME, Outcome.skipped("--consumer assign"),
                LiveHeap.Phase.ASSIGN_CONSUME, Outcome.measured(310L << 20),
                LiveHeap.Phase.STEADY, Outcome.measured(305L << 20));
        Map<LiveHeap.Phase, Outcome<Long>> floe = Map.of(
                LiveHeap.Phase.PRODUCE, Outcome.measured(400L << 20),
                LiveHeap.Phase.GROUP_CONSUME, Outcome.skipped("--consumer assign"),
                LiveHeap.Phase.ASSIGN_CONSUME,
                        Outcome.failed("jcmd 42 GC.class_histogram exited 1 without a "
                                + "histogram: java.io.IOException: No such process"),
                LiveHeap.Phase.STEADY, Outcome.measured(420L << 20));
        List<SystemRun> runs = List.of(
                run(1, "kafka", Outcome.measured(summary(5_000, 9)), new LiveHeap(kafka)),
                run(1, "floe", Outcome.measured(summary(5_000, 30)), new LiveHeap(floe)),
                run(2, "kafka", Outcome.measured(summary(5_000, 9)), LiveHeap.notMeasured()),
                run(
                        2,
                        "floe",
                        Outcome.measured(summary(5_000, 30)),
                        new LiveHeap(Map.of(LiveHeap.Phase.PRODUCE, Outcome.measured(500L << 20)))));
        Report report = report(options(), runs);

        assertThat(report.roundTable(1))
                .contains(
                        "| peak heap MiB | live heap MiB | peak RSS MiB |",
                        "| kafka | 100.0 | 102,400 | 200 | 700 | 800 | 900 | – | – | failed | 100 | 310 | 200 |",
                        "| system | after produce | after group consume | after assign consume | after steady | max |",
                        "| kafka | 300 | – | 310 | 305 | 310 |",
                        "| floe | 400 | – | failed | 420 | 420 |");
        assertThat(report.roundTable(2))
                .contains("| kafka | – | – | – | – | n/a |", "| floe | 500 | – | – | – | 500 |");
        String md = report.markdown("cmd", "machine");
        assertThat(md)
                .contains(
                        "| peak heap MiB (max) | live heap MiB (max) | peak RSS MiB (max) |",
                        "| kafka | 100.0 [100.0–100.0] | 200 [200–200] | 700 [700–700] | 3 [3–3] | 9 [9–9] | n/a | n/a "
                                + "| 100 | 310 | 200 |",
                        "| floe | 100.0 [100.0–100.0] | 200 [200–200] | 700 [700–700] | 3 [3–3] | 30 [30–30] | n/a | n/a "
                                + "| 100 | 500 | 200 |",
                        "- round 1 floe: live heap after assign consume: jcmd 42 GC.class_histogram exited 1 without a "
                                + "histogram: java.io.IOException: No such process",
                        "`jcmd <pid> GC.class_histogram`");
        assertEveryTableRowHasItsHeadersCells(md);
    }

    /** Every row of every Markdown table has as many cells as the table's header. */
    private static void assertEveryTableRowHasItsHeadersCells(String md) {
        int headerCells = -1;
        for (String line : md.lines().toList()) {
            if (!line.startsWith("|")) {
                headerCells = -1;
                continue;
            }
            int cells = line.split("\\|", -1).length;
            if (headerCells < 0) {
                headerCells = cells;
            }
            assertThat(cells).as("cells of %s", line).isEqualTo(headerCells);
        }
    }

    private static BenchmarkOptions options(String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "--kafka-classpath",
                "k.jar",
                "--driver-classpath",
                "d.jar",
                "--floe-script",
                "pom.xml",
                "--rounds",
                "2"));
        args.addAll(List.of(extra));
        return BenchmarkOptions.parse(args.toArray(String[]::new));
    }

    private static Report report(BenchmarkOptions options, List<SystemRun> runs) {
        return new Report(options, "kafka", "floe", List.of("tool a", "tool b"), runs, Map.of());
    }

    /** Rounds of kafka then floe with these steady p99s: kafka1, floe1, kafka2, floe2, ... */
    private static List<SystemRun> runs(long... steadyP99) {
        List<SystemRun> runs = new ArrayList<>();
        for (int i = 0; i < steadyP99.length; i++) {
            runs.add(run(i / 2 + 1, i % 2 == 0 ? "kafka" : "floe", Outcome.measured(summary(4_999.2, steadyP99[i]))));
        }
        return runs;
    }

    private static SystemRun run(int round, String label, Outcome<ProducerSummary> latency) {
        return run(round, label, latency, LiveHeap.notMeasured());
    }

    private static SystemRun run(int round, String label, Outcome<ProducerSummary> latency, LiveHeap liveHeap) {
        ProducerSummary saturation = new ProducerSummary(1_000, false, 102_400, 100.0, 300, 900, 200, 600, 700, 800);
        return new SystemRun(
                round,
                label,
                Outcome.measured(saturation),
                Outcome.skipped("--consumer assign"),
                Outcome.failed("boom"),
                latency,
                OptionalLong.of(100L << 20),
                liveHeap,
                200L << 20,
                List.of());
    }

    private static ProducerSummary summary(double recordsPerSec, long p99) {
        return new ProducerSummary(75_000, false, recordsPerSec, recordsPerSec / 1024, 4, 25, 3, 8, p99, 20);
    }
}
