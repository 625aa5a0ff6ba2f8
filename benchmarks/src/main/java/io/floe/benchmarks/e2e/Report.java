package io.floe.benchmarks.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The benchmark's report as Markdown: the setup and exact commands, one table per round, and a summary of medians
 * over rounds with Floe/Kafka ratios. Ratios are taken per round (the two systems ran side by side) and then
 * summarized, because run-to-run variance on small machines is larger than most differences of interest.
 */
final class Report {

    private static final double MIB = 1024.0 * 1024.0;
    private static final String NA = "n/a";

    private final BenchmarkOptions options;
    private final String baseline;
    private final String candidate;
    private final List<String> toolCommands;
    private final List<SystemRun> runs;

    Report(BenchmarkOptions options, String baseline, String candidate, List<String> toolCommands,
            List<SystemRun> runs) {
        this.options = options;
        this.baseline = baseline;
        this.candidate = candidate;
        this.toolCommands = toolCommands;
        this.runs = List.copyOf(runs);
    }

    String markdown(String command, String machine) {
        StringBuilder md = new StringBuilder();
        md.append("## End-to-end produce/consume: ").append(candidate).append(" vs ").append(baseline).append("\n\n");
        md.append(setup(command, machine)).append('\n');
        for (int round = 1; round <= options.rounds(); round++) {
            md.append(roundTable(round)).append('\n');
        }
        md.append(summary()).append('\n');
        md.append(notes());
        return md.toString();
    }

    private String setup(String command, String machine) {
        return String.format(Locale.ROOT, """
                - Machine: %s
                - Workload: %,d records of %,d bytes, %d partitions, producer %s, %d interleaved round(s): \
                %s then %s in each, each system started fresh with empty storage.
                - %sKafka 4.4.0 broker: KRaft combined mode, one node, JVM options `%s`.
                - Command: `%s`
                - Tools, each a child JVM (-Xmx512m), `<bootstrap>` being the system's listener:
                %s
                """, machine, options.records(), options.recordSizeBytes(), options.partitions(),
                PerfRunner.PRODUCER_PROPERTIES, options.rounds(), baseline, candidate, floeSetup(),
                String.join(" ", KafkaBroker.JVM_OPTIONS), command,
                toolCommands.stream().map(c -> "    - `" + c + "`").collect(Collectors.joining("\n")));
    }

    private String floeSetup() {
        if (options.kafkaOnly()) {
            return "";
        }
        StringBuilder flags = new StringBuilder("Floe agent: `bin/floe agent --listen <free port>"
                + " --http-listen <free port> --data-dir <temp dir>");
        options.floeFlushIntervalMs().ifPresent(ms -> flags.append(" --flush-interval-ms ").append(ms));
        options.floeExtraArgs().forEach(a -> flags.append(' ').append(a));
        return flags.append("`, FLOE_JAVA_OPTS ").append(options.floeJavaOptions().isBlank()
                ? "unset (JVM default heap: a quarter of RAM)" : "`" + options.floeJavaOptions() + "`")
                .append("; ").toString();
    }

    String roundTable(int round) {
        StringBuilder md = new StringBuilder("### Round " + round + "\n\n");
        md.append("| system | produce MB/s | produce rec/s | p50 ms | p99 ms | p99.9 ms | max ms "
                + "| group consume MB/s | group join ms | assign consume MB/s | peak heap MiB | peak RSS MiB |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String label : List.of(baseline, candidate)) {
            find(round, label).ifPresent(run -> md.append(roundRow(run)));
        }
        md.append("| ").append(ratioLabel()).append(" | ")
                .append(ratioCell(roundRatio(round, Report::produceMbPerSec))).append(" | ")
                .append(ratioCell(roundRatio(round, Report::produceRecordsPerSec)))
                .append(" | | | | | ")
                .append(ratioCell(roundRatio(round, Report::groupConsumeMbPerSec))).append(" | | ")
                .append(ratioCell(roundRatio(round, Report::assignConsumeMbPerSec))).append(" | | |\n");
        return md.toString();
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
                + " | " + cell(run.assignConsume().measured().map(ConsumerSummary::fetchMegabytesPerSec), "%.1f",
                        run.assignConsume())
                + " | " + mib(run.peakHeapBytes().isPresent()
                        ? OptionalDouble.of(run.peakHeapBytes().getAsLong()) : OptionalDouble.empty())
                + " | " + mib(run.peakRssBytes() > 0 ? OptionalDouble.of(run.peakRssBytes()) : OptionalDouble.empty())
                + " |\n";
    }

    private String summary() {
        StringBuilder md = new StringBuilder("### Summary: median over " + options.rounds()
                + " round(s), [min–max]\n\n");
        md.append("| system | produce MB/s | p50 ms | p99 ms | group consume MB/s | assign consume MB/s "
                + "| peak heap MiB (max) | peak RSS MiB (max) |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String label : List.of(baseline, candidate)) {
            List<SystemRun> of = runs.stream().filter(r -> r.label().equals(label)).toList();
            md.append("| ").append(label)
                    .append(" | ").append(spread(values(of, Report::produceMbPerSec), "%.1f"))
                    .append(" | ").append(spread(values(of, r -> r.produce().measured().map(s -> (double) s.p50Ms())),
                            "%.0f"))
                    .append(" | ").append(spread(values(of, r -> r.produce().measured().map(s -> (double) s.p99Ms())),
                            "%.0f"))
                    .append(" | ").append(spread(values(of, Report::groupConsumeMbPerSec), "%.1f"))
                    .append(" | ").append(spread(values(of, Report::assignConsumeMbPerSec), "%.1f"))
                    .append(" | ").append(mib(max(values(of, r -> toOptional(r.peakHeapBytes())))))
                    .append(" | ").append(mib(max(values(of, r -> r.peakRssBytes() > 0
                            ? Optional.of((double) r.peakRssBytes()) : Optional.empty()))))
                    .append(" |\n");
        }
        md.append("| ").append(ratioLabel())
                .append(" | ").append(spread(ratios(Report::produceMbPerSec), "%.2f"))
                .append(" | | | ").append(spread(ratios(Report::groupConsumeMbPerSec), "%.2f"))
                .append(" | ").append(spread(ratios(Report::assignConsumeMbPerSec), "%.2f"))
                .append(" | | |\n");
        return md.toString();
    }

    private String notes() {
        List<String> lines = new ArrayList<>();
        lines.add("- produce: ProducerPerformance's final summary" + (options.warmupRecords() > 0
                ? " (steady state, after " + options.warmupRecords() + " warm-up records)" : "")
                + "; latencies are send-to-ack, acks=all.");
        lines.add("- group consume: ConsumerPerformance's fetch.MB.sec, which leaves out the group join "
                + "(shown as group join ms); assign consume: AssignConsumer, assign() to all partitions, no group, "
                + "timed from start to the last record.");
        lines.add("- " + ratioLabel() + ": per-round ratio of throughputs; the summary gives their median [min–max]."
                + " Peak heap: used heap sampled every " + HeapSampler.PERIOD.toMillis()
                + " ms (Kafka over JMX, Floe from /metrics `jvm_memory_used_bytes{area=\"heap\"}`); "
                + "peak RSS: VmHWM of the process tree.");
        for (SystemRun run : runs) {
            for (Outcome<?> o : List.of(run.produce(), run.groupConsume(), run.assignConsume())) {
                if (o instanceof Outcome.Failed<?> f) {
                    lines.add("- round " + run.round() + " " + run.label() + ": " + f.reason().lines().findFirst()
                            .orElse(""));
                }
            }
            run.notes().forEach(n -> lines.add("- round " + run.round() + " " + run.label() + ": " + n));
        }
        return String.join("\n", lines) + "\n";
    }

    private String ratioLabel() {
        return candidate + "/" + baseline;
    }

    private Optional<SystemRun> find(int round, String label) {
        return runs.stream().filter(r -> r.round() == round && r.label().equals(label)).findFirst();
    }

    private OptionalDouble roundRatio(int round, Function<SystemRun, Optional<Double>> metric) {
        Optional<Double> base = find(round, baseline).flatMap(metric);
        Optional<Double> cand = find(round, candidate).flatMap(metric);
        return base.isPresent() && cand.isPresent() && base.get() > 0
                ? OptionalDouble.of(cand.get() / base.get()) : OptionalDouble.empty();
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
        double median = n % 2 == 1 ? sortedValues.get(n / 2)
                : (sortedValues.get(n / 2 - 1) + sortedValues.get(n / 2)) / 2;
        String m = String.format(Locale.ROOT, format, median);
        return n == 1 ? m : m + " [" + String.format(Locale.ROOT, format, sortedValues.get(0)) + "–"
                + String.format(Locale.ROOT, format, sortedValues.get(n - 1)) + "]";
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
