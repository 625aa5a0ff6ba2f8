package io.floe.benchmarks.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The benchmark's report as Markdown: the setup and exact commands, one table per round (plus one for the
 * steady-rate phase), and a summary of medians over rounds with Floe/Kafka ratios. Ratios are taken per round (the
 * two systems ran side by side) and then summarized, because run-to-run variance on small machines is larger than
 * most differences of interest.
 */
final class Report {

    private static final double MIB = 1024.0 * 1024.0;
    private static final String NA = "n/a";
    /** The acceptance target: Floe's steady-rate produce p99 at most the flush interval plus this. */
    static final long TARGET_MARGIN_MS = 25;
    /**
     * A steady phase whose rate is off its target by more than this share queued: below, the system did not keep
     * up; above, the tool caught up on a stall with a burst (its rate is counted from the end of the warm-up).
     */
    static final double RATE_TOLERANCE = 0.05;

    private final BenchmarkOptions options;
    private final String baseline;
    private final String candidate;
    private final List<String> toolCommands;
    private final List<SystemRun> runs;
    private final Optional<BenchmarkOptions.FlushInterval> floeFlushInterval;

    Report(
            BenchmarkOptions options,
            String baseline,
            String candidate,
            List<String> toolCommands,
            List<SystemRun> runs) {
        this(options, baseline, candidate, toolCommands, runs, System.getenv());
    }

    /** @param environment the environment the Floe agent inherits, for its flush interval */
    Report(
            BenchmarkOptions options,
            String baseline,
            String candidate,
            List<String> toolCommands,
            List<SystemRun> runs,
            Map<String, String> environment) {
        this.options = options;
        this.baseline = baseline;
        this.candidate = candidate;
        this.toolCommands = toolCommands;
        this.runs = List.copyOf(runs);
        this.floeFlushInterval = options.floeFlushInterval(environment);
    }

    String markdown(String command, String machine) {
        StringBuilder md = new StringBuilder();
        md.append("## End-to-end produce/consume: ")
                .append(candidate)
                .append(" vs ")
                .append(baseline)
                .append("\n\n");
        md.append(setup(command, machine)).append('\n');
        for (int round = 1; round <= options.rounds(); round++) {
            md.append(roundTable(round)).append('\n');
        }
        md.append(summary()).append('\n');
        md.append(notes());
        return md.toString();
    }

    private String setup(String command, String machine) {
        return String.format(
                Locale.ROOT,
                """
                - Machine: %s
                - Workload: %,d records of %,d bytes, %d partitions, producer %s, %d interleaved round(s): \
                %s then %s in each, each system started fresh with empty storage.
                %s- %sKafka 4.4.0 broker: KRaft combined mode, one node, JVM options `%s`.
                - Command: `%s`
                - Tools, each a child JVM (-Xmx512m), `<bootstrap>` being the system's listener:
                %s
                """,
                machine,
                options.records(),
                options.recordSizeBytes(),
                options.partitions(),
                PerfRunner.PRODUCER_PROPERTIES,
                options.rounds(),
                baseline,
                candidate,
                steadySetup(),
                floeSetup(),
                String.join(" ", KafkaBroker.JVM_OPTIONS),
                command,
                toolCommands.stream().map(c -> "    - `" + c + "`").collect(Collectors.joining("\n")));
    }

    private String steadySetup() {
        if (!options.latencyPhase()) {
            return "";
        }
        return String.format(
                Locale.ROOT,
                "- Steady-rate phase, after the consumers: %,d records at %,d records/s "
                        + "(~%d s) into topic `%s` (%d partitions, same producer properties), %s.%n",
                options.latencyRecords(),
                options.latencyRate(),
                options.latencyRecords() / options.latencyRate(),
                Workload.LATENCY_TOPIC,
                options.partitions(),
                options.latencyWarmupRecords() > 0
                        ? String.format(
                                Locale.ROOT,
                                "figures over the last %,d (the first %,d warm the tool up)",
                                options.latencyRecords() - options.latencyWarmupRecords(),
                                options.latencyWarmupRecords())
                        : "figures over all of them");
    }

    private String floeSetup() {
        if (options.kafkaOnly()) {
            return "";
        }
        StringBuilder flags = new StringBuilder("Floe agent: `bin/floe agent --listen <free port>"
                + " --http-listen <free port> --data-dir <temp dir>");
        options.floeFlushIntervalMs()
                .ifPresent(ms -> flags.append(" --flush-interval-ms ").append(ms));
        options.floeExtraArgs().forEach(a -> flags.append(' ').append(a));
        return flags.append("`, FLOE_JAVA_OPTS ")
                .append(
                        options.floeJavaOptions().isBlank()
                                ? "only a JMX port for the heap sampler (bin/floe's agent defaults: `-Xms1g -Xmx1g` with Kafka's G1 "
                                        + "settings)"
                                : "`" + options.floeJavaOptions() + "` and a JMX port for the heap sampler")
                .append("; ")
                .toString();
    }

    String roundTable(int round) {
        StringBuilder md = new StringBuilder("### Round " + round + "\n\n");
        md.append("| system | produce MB/s | produce rec/s | p50 ms | p99 ms | p99.9 ms | max ms "
                + "| group consume MB/s | group join ms | assign consume MB/s | peak heap MiB | live heap MiB "
                + "| peak RSS MiB |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String label : List.of(baseline, candidate)) {
            find(round, label).ifPresent(run -> md.append(roundRow(run)));
        }
        md.append("| ")
                .append(ratioLabel())
                .append(" | ")
                .append(ratioCell(roundRatio(round, Report::produceMbPerSec)))
                .append(" | ")
                .append(ratioCell(roundRatio(round, Report::produceRecordsPerSec)))
                .append(" | | | | | ")
                .append(ratioCell(roundRatio(round, Report::groupConsumeMbPerSec)))
                .append(" | | ")
                .append(ratioCell(roundRatio(round, Report::assignConsumeMbPerSec)))
                .append(" | | | |\n");
        md.append(liveHeapTable(round));
        if (options.latencyPhase()) {
            md.append(String.format(Locale.ROOT, "%nSteady rate, %,d records/s asked:%n%n", options.latencyRate()));
            md.append("| system | steady rec/s | steady p50 ms | steady p99 ms | steady p99.9 ms | steady max ms |\n");
            md.append("|---|---:|---:|---:|---:|---:|\n");
            for (String label : List.of(baseline, candidate)) {
                find(round, label).ifPresent(run -> md.append(steadyRow(run)));
            }
        }
        return md.toString();
    }

    /** The live heap after each phase that can run; the round table shows the largest. */
    private String liveHeapTable(int round) {
        List<LiveHeap.Phase> phases = List.of(LiveHeap.Phase.values()).stream()
                .filter(p -> p != LiveHeap.Phase.STEADY || options.latencyPhase())
                .toList();
        StringBuilder md = new StringBuilder("\nLive heap after a full GC at the end of each phase, MiB:\n\n");
        md.append("| system |");
        phases.forEach(p -> md.append(" after ").append(p.label()).append(" |"));
        md.append(" max |\n|---|").append("---:|".repeat(phases.size() + 1)).append('\n');
        for (String label : List.of(baseline, candidate)) {
            find(round, label).ifPresent(run -> {
                md.append("| ").append(run.label()).append(" |");
                for (LiveHeap.Phase phase : phases) {
                    Outcome<Long> reading = run.liveHeap().after(phase);
                    md.append(' ')
                            .append(cell(reading.measured().map(b -> b / MIB), "%.0f", reading))
                            .append(" |");
                }
                md.append(' ')
                        .append(mib(toOptionalDouble(run.liveHeap().maxBytes())))
                        .append(" |\n");
            });
        }
        return md.toString();
    }

    private static String steadyRow(SystemRun run) {
        Optional<ProducerSummary> s = run.latency().measured();
        return "| " + run.label()
                + " | " + cell(s.map(ProducerSummary::recordsPerSec), "%,.0f", run.latency())
                + " | " + cell(s.map(p -> (double) p.p50Ms()), "%.0f", run.latency())
                + " | " + cell(s.map(p -> (double) p.p99Ms()), "%.0f", run.latency())
                + " | " + cell(s.map(p -> (double) p.p999Ms()), "%.0f", run.latency())
                + " | " + cell(s.map(ProducerSummary::maxLatencyMs), "%.0f", run.latency())
                + " |\n";
    }

    private static String roundRow(SystemRun run) {
        Optional<ProducerSummary> p = run.produce().measured();
        Optional<ConsumerSummary> g = run.groupConsume().measured();
        return "| " + run.label()
                + " | " + cell(p.map(ProducerSummary::megabytesPerSec), "%.1f", run.produce())
                + " | " + cell(p.map(ProducerSummary::recordsPerSec), "%,.0f", run.produce())
                + " | " + cell(p.map(s -> (double) s.p50Ms()), "%.0f", run.produce())
                + " | " + cell(p.map(s -> (double) s.p99Ms()), "%.0f", run.produce())
                + " | " + cell(p.map(s -> (double) s.p999Ms()), "%.0f", run.produce())
                + " | " + cell(p.map(ProducerSummary::maxLatencyMs), "%.0f", run.produce())
                + " | " + cell(g.map(ConsumerSummary::fetchMegabytesPerSec), "%.1f", run.groupConsume())
                + " | " + cell(g.map(s -> (double) s.groupJoinMs()), "%.0f", run.groupConsume())
                + " | "
                + cell(
                        run.assignConsume().measured().map(ConsumerSummary::fetchMegabytesPerSec),
                        "%.1f",
                        run.assignConsume())
                + " | " + mib(toOptionalDouble(run.peakHeapBytes()))
                + " | " + mib(toOptionalDouble(run.liveHeap().maxBytes()))
                + " | " + mib(run.peakRssBytes() > 0 ? OptionalDouble.of(run.peakRssBytes()) : OptionalDouble.empty())
                + " |\n";
    }

    private String summary() {
        StringBuilder md =
                new StringBuilder("### Summary: median over " + options.rounds() + " round(s), [min–max]\n\n");
        boolean steady = options.latencyPhase();
        md.append("| system | produce MB/s | p50 ms | p99 ms | ")
                .append(steady ? "steady p50 ms | steady p99 ms | " : "")
                .append("group consume MB/s | assign consume MB/s | peak heap MiB (max) | live heap MiB (max) "
                        + "| peak RSS MiB (max) |\n");
        md.append("|---|---:|---:|---:|").append(steady ? "---:|---:|" : "").append("---:|---:|---:|---:|---:|\n");
        for (String label : List.of(baseline, candidate)) {
            List<SystemRun> of =
                    runs.stream().filter(r -> r.label().equals(label)).toList();
            md.append("| ")
                    .append(label)
                    .append(" | ")
                    .append(spread(values(of, Report::produceMbPerSec), "%.1f"))
                    .append(" | ")
                    .append(spread(values(of, r -> r.produce().measured().map(s -> (double) s.p50Ms())), "%.0f"))
                    .append(" | ")
                    .append(spread(values(of, r -> r.produce().measured().map(s -> (double) s.p99Ms())), "%.0f"))
                    .append(
                            steady
                                    ? " | " + spread(values(of, Report::steadyP50Ms), "%.0f") + " | "
                                            + spread(values(of, Report::steadyP99Ms), "%.0f")
                                    : "")
                    .append(" | ")
                    .append(spread(values(of, Report::groupConsumeMbPerSec), "%.1f"))
                    .append(" | ")
                    .append(spread(values(of, Report::assignConsumeMbPerSec), "%.1f"))
                    .append(" | ")
                    .append(mib(max(values(of, r -> toOptional(r.peakHeapBytes())))))
                    .append(" | ")
                    .append(mib(max(values(of, r -> toOptional(r.liveHeap().maxBytes())))))
                    .append(" | ")
                    .append(mib(max(values(
                            of,
                            r -> r.peakRssBytes() > 0 ? Optional.of((double) r.peakRssBytes()) : Optional.empty()))))
                    .append(" |\n");
        }
        md.append("| ")
                .append(ratioLabel())
                .append(" | ")
                .append(spread(ratios(Report::produceMbPerSec), "%.2f"))
                .append(" | | | ")
                .append(steady ? "| | " : "")
                .append(spread(ratios(Report::groupConsumeMbPerSec), "%.2f"))
                .append(" | ")
                .append(spread(ratios(Report::assignConsumeMbPerSec), "%.2f"))
                .append(" | | | |\n");
        if (steady && !options.kafkaOnly()) {
            md.append('\n').append(target()).append('\n');
        }
        return md.toString();
    }

    /** The acceptance target, judged on the median of Floe's steady p99 over the rounds. */
    String target() {
        List<Double> p99 =
                values(runs.stream().filter(r -> r.label().equals(candidate)).toList(), Report::steadyP99Ms);
        if (floeFlushInterval.isEmpty()) {
            return "target: Floe steady p99 ≤ flush interval + " + TARGET_MARGIN_MS + " ms: not judged, the driver "
                    + "cannot tell the flush interval (a --config file among the --floe-arg arguments?)"
                    + (p99.isEmpty() ? "" : String.format(Locale.ROOT, " (median %.0f ms)", median(p99)));
        }
        long flushMs = floeFlushInterval.get().millis();
        long limitMs = flushMs + TARGET_MARGIN_MS;
        String head = "target: Floe steady p99 ≤ flush interval + " + TARGET_MARGIN_MS + " ms = " + limitMs + " ms: ";
        if (p99.isEmpty()) {
            return head + "not measured";
        }
        double median = median(p99);
        return head
                + (median <= limitMs ? "met" : "not met")
                + String.format(
                        Locale.ROOT,
                        " (median %.0f ms over %d round(s); flush interval %d ms from %s)",
                        median,
                        p99.size(),
                        flushMs,
                        floeFlushInterval.get().source());
    }

    private String notes() {
        List<String> lines = new ArrayList<>();
        lines.add("- produce: ProducerPerformance's final summary"
                + (options.warmupRecords() > 0
                        ? " (steady state, after " + options.warmupRecords() + " warm-up records)"
                        : "")
                + "; latencies are send-to-ack, acks=all.");
        lines.add("- group consume: ConsumerPerformance's fetch.MB.sec, which leaves out the group join "
                + "(shown as group join ms); assign consume: AssignConsumer, assign() to all partitions, no group, "
                + "timed from start to the last record.");
        lines.add("- " + ratioLabel() + ": per-round ratio of throughputs; the summary gives their median [min–max]."
                + " Peak heap: used heap sampled every " + HeapSampler.PERIOD.toMillis()
                + " ms over JMX, from both JVMs alike (the driver gives each a local JMX port); "
                + "peak RSS: VmHWM of the process tree.");
        lines.add("- live heap: the same used-heap reading, taken right after a full GC forced with `jcmd <pid> "
                + "GC.class_histogram` at the end of each phase, before the next starts: what the system still holds, "
                + "without the garbage the peak includes. (`GC.run` would only start a concurrent cycle: both JVMs "
                + "run G1 with -XX:+ExplicitGCInvokesConcurrent.) The round table shows the largest over the phases.");
        if (options.latencyPhase()) {
            lines.add(String.format(
                    Locale.ROOT,
                    "- steady: after the consumers, ProducerPerformance throttled to "
                            + "%,d records/s into its own topic `%s`, same producer properties%s: send-to-ack latency at a "
                            + "rate both systems sustain, where the saturation latencies above are mostly time queued in the "
                            + "producer.",
                    options.latencyRate(),
                    Workload.LATENCY_TOPIC,
                    options.latencyWarmupRecords() > 0
                            ? String.format(
                                    Locale.ROOT,
                                    ", its steady-state summary (after %,d warm-up records)",
                                    options.latencyWarmupRecords())
                            : ""));
        }
        for (SystemRun run : runs) {
            for (Outcome<?> o : List.of(run.produce(), run.groupConsume(), run.assignConsume())) {
                if (o instanceof Outcome.Failed<?> f) {
                    lines.add("- round " + run.round() + " " + run.label() + ": "
                            + f.reason().lines().findFirst().orElse(""));
                }
            }
            for (LiveHeap.Phase phase : LiveHeap.Phase.values()) {
                if (run.liveHeap().after(phase) instanceof Outcome.Failed<?> f) {
                    lines.add("- round " + run.round() + " " + run.label() + ": live heap after " + phase.label() + ": "
                            + f.reason().lines().findFirst().orElse(""));
                }
            }
            if (run.latency() instanceof Outcome.Failed<?> f) {
                lines.add("- round " + run.round() + " " + run.label() + ": steady phase: "
                        + f.reason().lines().findFirst().orElse(""));
            }
            run.latency()
                    .measured()
                    .filter(s -> Math.abs(s.recordsPerSec() / options.latencyRate() - 1) > RATE_TOLERANCE)
                    .ifPresent(s -> lines.add(String.format(
                            Locale.ROOT,
                            "- round %d %s: steady phase ran at "
                                    + "%,.0f records/s, %,d asked: %s, so its latencies include queueing.",
                            run.round(),
                            run.label(),
                            s.recordsPerSec(),
                            options.latencyRate(),
                            s.recordsPerSec() < options.latencyRate()
                                    ? "the system did not keep up"
                                    : "the tool sent a burst to catch up after a stall")));
            run.notes().forEach(n -> lines.add("- round " + run.round() + " " + run.label() + ": " + n));
        }
        return String.join("\n", lines) + "\n";
    }

    private String ratioLabel() {
        return candidate + "/" + baseline;
    }

    private Optional<SystemRun> find(int round, String label) {
        return runs.stream()
                .filter(r -> r.round() == round && r.label().equals(label))
                .findFirst();
    }

    private OptionalDouble roundRatio(int round, Function<SystemRun, Optional<Double>> metric) {
        Optional<Double> base = find(round, baseline).flatMap(metric);
        Optional<Double> cand = find(round, candidate).flatMap(metric);
        return base.isPresent() && cand.isPresent() && base.get() > 0
                ? OptionalDouble.of(cand.get() / base.get())
                : OptionalDouble.empty();
    }

    private List<Double> ratios(Function<SystemRun, Optional<Double>> metric) {
        List<Double> ratios = new ArrayList<>();
        for (int round = 1; round <= options.rounds(); round++) {
            roundRatio(round, metric).ifPresent(ratios::add);
        }
        return ratios;
    }

    private static Optional<Double> produceMbPerSec(SystemRun r) {
        return r.produce().measured().map(ProducerSummary::megabytesPerSec);
    }

    private static Optional<Double> produceRecordsPerSec(SystemRun r) {
        return r.produce().measured().map(ProducerSummary::recordsPerSec);
    }

    private static Optional<Double> steadyP50Ms(SystemRun r) {
        return r.latency().measured().map(s -> (double) s.p50Ms());
    }

    private static Optional<Double> steadyP99Ms(SystemRun r) {
        return r.latency().measured().map(s -> (double) s.p99Ms());
    }

    private static Optional<Double> groupConsumeMbPerSec(SystemRun r) {
        return r.groupConsume().measured().map(ConsumerSummary::fetchMegabytesPerSec);
    }

    private static Optional<Double> assignConsumeMbPerSec(SystemRun r) {
        return r.assignConsume().measured().map(ConsumerSummary::fetchMegabytesPerSec);
    }

    private static List<Double> values(List<SystemRun> of, Function<SystemRun, Optional<Double>> metric) {
        return of.stream().map(metric).flatMap(Optional::stream).toList();
    }

    private static Optional<Double> toOptional(java.util.OptionalLong value) {
        return value.isPresent() ? Optional.of((double) value.getAsLong()) : Optional.empty();
    }

    private static OptionalDouble toOptionalDouble(java.util.OptionalLong value) {
        return value.isPresent() ? OptionalDouble.of(value.getAsLong()) : OptionalDouble.empty();
    }

    private static OptionalDouble max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max();
    }

    /** Median and range of the values: the median alone for one value, n/a for none. */
    static String spread(List<Double> values, String format) {
        List<Double> sortedValues = values.stream().sorted().toList();
        if (sortedValues.isEmpty()) {
            return NA;
        }
        int n = sortedValues.size();
        String m = String.format(Locale.ROOT, format, median(sortedValues));
        return n == 1
                ? m
                : m + " [" + String.format(Locale.ROOT, format, sortedValues.get(0)) + "–"
                        + String.format(Locale.ROOT, format, sortedValues.get(n - 1)) + "]";
    }

    /** The median of a non-empty list. */
    static double median(List<Double> values) {
        List<Double> sortedValues = values.stream().sorted().toList();
        int n = sortedValues.size();
        return n % 2 == 1 ? sortedValues.get(n / 2) : (sortedValues.get(n / 2 - 1) + sortedValues.get(n / 2)) / 2;
    }

    private static String cell(Optional<Double> value, String format, Outcome<?> outcome) {
        return value.map(v -> String.format(Locale.ROOT, format, v))
                .orElse(outcome instanceof Outcome.Skipped<?> ? "–" : "failed");
    }

    private static String ratioCell(OptionalDouble ratio) {
        return ratio.isPresent() ? String.format(Locale.ROOT, "%.2f", ratio.getAsDouble()) : NA;
    }

    private static String mib(OptionalDouble bytes) {
        return bytes.isPresent() ? String.format(Locale.ROOT, "%.0f", bytes.getAsDouble() / MIB) : NA;
    }
}
