package io.floe.benchmarks.tableflow;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Tableflow's cost, with Floe in this JVM on embedded stores (what each phase does is in its class; {@code --results
 * FILE} also appends each measured run of the throughput and changes phases to FILE for {@link BuildComparison}):
 * <ol>
 *   <li>{@code throughput} ({@link CatchUp}): per variant (append, append+delta, upsert, upsert+delta), the same
 *       {@code --records} records (1 KiB JSON, keys drawn from {@code --key-space} keys) produced first, then
 *       materialized; records per second and per CPU-second of the one Tableflow thread. {@code --rounds} rounds,
 *       the variants' order rotated each round, after an unmeasured warm-up run; medians at the end. Unless
 *       {@code --connect false} (the script passes {@code --connect-classpath}), Apache Iceberg's Kafka Connect sink
 *       ({@link ConnectSink}) materializes the same records in each round, per CPU-second of its worker process;</li>
 *   <li>{@code changes} ({@link ChangePublication}, only when listed in {@code --phases}): per variant ({@code
 *       --change-variants}, append and upsert), a materialized table's change topic published from its start, in
 *       change events per second, per Tableflow-thread CPU-second and per agent CPU-second;</li>
 *   <li>{@code delta-cost} ({@link DeltaCost}): the Delta log's CPU and object-store requests per commit at a
 *       steady rate and a realistic commit interval, for append and upsert tables;</li>
 *   <li>{@code lag} ({@link Lag}): the table's lag at half the append catch-up rate.</li>
 * </ol>
 * Usage: {@code benchmarks/run-tableflow.sh [--records N] [--key-space K] [--partitions P] [--rounds R]
 * [--variants append,append+delta,upsert,upsert+delta] [--phases throughput,changes,delta-cost,lag] [--out FILE]
 * [--results FILE --build-name NAME] ...};
 * {@code benchmarks/README.md} lists every option.
 */
public final class TableflowBenchmark {

    private TableflowBenchmark() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        List<String> phases = list(options.getOrDefault("phases", "throughput,delta-cost"));
        List<String> report = new ArrayList<>();
        report.add("command: benchmarks/run-tableflow.sh " + String.join(" ", args));
        report.add(String.format(Locale.ROOT, "machine: %d cores, load %s at start; JVM max heap %d MB",
                Runtime.getRuntime().availableProcessors(), Cpu.load(), Runtime.getRuntime().maxMemory() >> 20));
        double appendMbPerSecond = Double.NaN;
        if (phases.contains("throughput")) {
            appendMbPerSecond = throughput(options, report);
        }
        if (phases.contains("changes")) {
            changes(options, report);
        }
        if (phases.contains("delta-cost")) {
            deltaCost(options, report);
        }
        if (phases.contains("lag")) {
            double rate = Double.parseDouble(options.getOrDefault("lag-rate", "0"));
            if (rate <= 0) {
                double mbPerSecond = Double.isNaN(appendMbPerSecond) ? 20 : appendMbPerSecond;
                rate = mbPerSecond * Double.parseDouble(options.getOrDefault("rate-fraction", "0.5")) * 1e6
                        / (EventRecords.VALUE_BYTES + 60);
            }
            String lag = Lag.run(rate, Long.parseLong(options.getOrDefault("lag-commit-interval-ms", "2000")),
                    Integer.parseInt(options.getOrDefault("lag-seconds", "30")));
            System.out.println(lag);
            report.add(lag);
        }
        System.out.println();
        report.forEach(System.out::println);
        if (options.containsKey("out")) {
            Files.write(Path.of(options.get("out")), report);
        }
    }

    /** Runs the throughput phase; returns the append variant's median MB/s of wall time (the lag phase's base). */
    private static double throughput(Map<String, String> options, List<String> report) throws Exception {
        long records = Long.parseLong(options.getOrDefault("records", "300000"));
        long keySpace = Long.parseLong(options.getOrDefault("key-space", Long.toString(Math.max(1, records / 3))));
        int partitions = Integer.parseInt(options.getOrDefault("partitions", "6"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        long commitIntervalMs = Long.parseLong(options.getOrDefault("commit-interval-ms", "1000"));
        long warmup = Long.parseLong(options.getOrDefault("warmup-records", Long.toString(records / 5)));
        List<Variant> variants = Arrays.stream(options.getOrDefault("variants", "append,append+delta,upsert,upsert+delta")
                        .split(","))
                .map(Variant::parse)
                .toList();
        if (warmup > 0) {
            for (Variant variant : variants) {
                CatchUp run = CatchUp.run(variant, warmup, partitions, Math.max(1, warmup / 3), commitIntervalMs);
                System.out.println("warm-up (not counted) " + run.line());
            }
        }
        Map<Variant, List<CatchUp>> runs = new HashMap<>();
        List<ConnectSink.Run> sinkRuns = new ArrayList<>();
        double sinkIdle = Double.NaN;
        try (ConnectSink sink = connectSink(options, partitions, keySpace, commitIntervalMs, warmup)) {
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < variants.size(); i++) {
                    Variant variant = variants.get((i + round) % variants.size());
                    CatchUp run = CatchUp.run(variant, records, partitions, keySpace, commitIntervalMs);
                    System.out.println("round " + (round + 1) + " " + run.line());
                    runs.computeIfAbsent(variant, v -> new ArrayList<>()).add(run);
                    record(options, Measurement.of(build(options), run));
                }
                if (sink != null) {
                    ConnectSink.Run run = sink.measure(records);
                    System.out.println("round " + (round + 1) + " " + run.line());
                    sinkRuns.add(run);
                }
            }
            sinkIdle = sink == null ? Double.NaN : sink.idleCpuPerSecond(Duration.ofSeconds(10));
        }
        report.add("");
        report.add(String.format(Locale.ROOT, "## Catch-up: %d records of 1 KiB JSON (%d partitions, keys from a key"
                        + " space of %d), %d rounds, medians [min-max]", records, partitions, keySpace, rounds));
        report.add("");
        report.add("| variant | records/s | MB/s per Tableflow-thread CPU-s | records per thread CPU-s"
                + " | thread CPU-s | JVM CPU-s (less the driver) | MB/s per JVM CPU-s | Iceberg snapshots | rows"
                + " | PUTs / GETs / LISTs (Tableflow thread) | load |");
        report.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (Variant variant : variants) {
            report.add(row(variant, runs.get(variant)));
        }
        if (!sinkRuns.isEmpty()) {
            report.addAll(sinkReport(sinkRuns, options.getOrDefault("connect-tasks", "1"), sinkIdle));
        }
        List<CatchUp> append = runs.get(new Variant("append", false));
        return append == null ? Double.NaN : Stats.median(append, run -> run.batchBytes() / 1e6 / run.seconds());
    }

    private static String row(Variant variant, List<CatchUp> list) {
        return String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |", variant,
                range(list, CatchUp::recordsPerSecond, "%.0f"), range(list, CatchUp::megabytesPerCpuSecond, "%.1f"),
                range(list, CatchUp::recordsPerCpuSecond, "%.0f"), range(list, CatchUp::threadCpuSeconds, "%.2f"),
                range(list, CatchUp::processCpuSeconds, "%.2f"),
                range(list, run -> run.batchBytes() / 1e6 / run.processCpuSeconds(), "%.1f"),
                range(list, CatchUp::snapshots, "%.0f"), list.get(0).rows(),
                String.format(Locale.ROOT, "%.0f / %.0f / %.0f", Stats.median(list, r -> r.requests().puts()),
                        Stats.median(list, r -> r.requests().gets()), Stats.median(list, r -> r.requests().lists())),
                range(list, CatchUp::loadBefore, "%.1f"));
    }

    /** The Iceberg sink for the append variant's comparison, or null without {@code --connect-classpath}. */
    private static ConnectSink connectSink(Map<String, String> options, int partitions, long keySpace,
            long commitIntervalMs, long warmup) throws Exception {
        if (!options.containsKey("connect-classpath")) {
            return null;
        }
        String classpath = Files.readString(Path.of(options.get("connect-classpath"))).trim();
        int tasks = Integer.parseInt(options.getOrDefault("connect-tasks", "1"));
        return ConnectSink.start(classpath, partitions, keySpace, commitIntervalMs, tasks, Math.max(1, warmup));
    }

    private static List<String> sinkReport(List<ConnectSink.Run> runs, String tasks, double idleCpuPerSecond) {
        return List.of("",
                "## Iceberg's Kafka Connect sink on the same records (append), " + tasks
                        + " task(s), medians [min-max]",
                "",
                "| sink | records/s | MB/s per worker CPU-s | records per worker CPU-s | worker CPU-s"
                        + " | agent CPU-s serving it | Iceberg snapshots | load |",
                "|---|---:|---:|---:|---:|---:|---:|---|",
                String.format(Locale.ROOT, "| Iceberg Kafka Connect | %s | %s | %s | %s | %s | %s | %s |",
                        range(runs, r -> r.records() / r.seconds(), "%.0f"),
                        range(runs, ConnectSink.Run::megabytesPerCpuSecond, "%.1f"),
                        range(runs, ConnectSink.Run::recordsPerCpuSecond, "%.0f"),
                        range(runs, ConnectSink.Run::workerCpuSeconds, "%.2f"),
                        range(runs, ConnectSink.Run::agentCpuSeconds, "%.2f"),
                        range(runs, ConnectSink.Run::snapshots, "%.0f"),
                        range(runs, ConnectSink.Run::loadBefore, "%.1f")),
                String.format(Locale.ROOT, "(the worker idles at %.3f CPU-s per second with its connector running"
                        + " and nothing to read)", idleCpuPerSecond));
    }

    /**
     * Runs the change-topic phase ({@link ChangePublication}): per round and variant, a table materialized first, then
     * its change topic named and timed until published; medians at the end.
     */
    private static void changes(Map<String, String> options, List<String> report) throws Exception {
        long records = Long.parseLong(options.getOrDefault("change-records", options.getOrDefault("records", "300000")));
        long keySpace = Long.parseLong(options.getOrDefault("key-space", Long.toString(Math.max(1, records / 3))));
        int partitions = Integer.parseInt(options.getOrDefault("partitions", "6"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        long commitIntervalMs = Long.parseLong(options.getOrDefault("commit-interval-ms", "1000"));
        long warmup = Long.parseLong(options.getOrDefault("warmup-records", Long.toString(records / 5)));
        List<ChangeVariant> variants = list(options.getOrDefault("change-variants", "append,upsert,upsert-snapshot"))
                .stream()
                .map(ChangeVariant::parse)
                .toList();
        if (warmup > 0) {
            for (ChangeVariant variant : variants) {
                ChangePublication run = ChangePublication.run(variant, warmup, partitions, Math.max(1, warmup / 3),
                        commitIntervalMs);
                System.out.println("warm-up (not counted) " + run.line());
            }
        }
        Map<ChangeVariant, List<ChangePublication>> runs = new HashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < variants.size(); i++) {
                ChangeVariant variant = variants.get((i + round) % variants.size());
                ChangePublication run = ChangePublication.run(variant, records, partitions, keySpace, commitIntervalMs);
                System.out.println("round " + (round + 1) + " " + run.line());
                if (!run.consistent()) {
                    System.out.println("WARNING: change events " + run.ops() + " for a table of " + run.tableRows()
                            + " rows from " + run.records() + " records");
                }
                runs.computeIfAbsent(variant, v -> new ArrayList<>()).add(run);
                record(options, Measurement.of(build(options), run));
            }
        }
        report.add("");
        report.add(String.format(Locale.ROOT, "## Change topic: a table of %d records (%d partitions, keys from a key"
                + " space of %d) published from the start once materialized, %d rounds, medians [min-max]", records,
                partitions, keySpace, rounds));
        report.add("");
        report.add("| variant | change events (by op) | changes/s | changes per Tableflow-thread CPU-s"
                + " | changes per agent CPU-s | thread CPU-s | agent CPU-s | seconds | load |");
        report.add("|---|---|---:|---:|---:|---:|---:|---:|---|");
        for (ChangeVariant variant : variants) {
            List<ChangePublication> list = runs.get(variant);
            report.add(String.format(Locale.ROOT, "| %s | %d %s | %s | %s | %s | %s | %s | %s | %s |", variant,
                    list.get(0).changes(), list.get(0).ops(), range(list, ChangePublication::changesPerSecond, "%.0f"),
                    range(list, ChangePublication::changesPerThreadCpuSecond, "%.0f"),
                    range(list, ChangePublication::changesPerProcessCpuSecond, "%.0f"),
                    range(list, ChangePublication::threadCpuSeconds, "%.2f"),
                    range(list, ChangePublication::processCpuSeconds, "%.2f"),
                    range(list, ChangePublication::seconds, "%.2f"), range(list, ChangePublication::loadBefore, "%.1f")));
        }
    }

    private static String build(Map<String, String> options) {
        return options.getOrDefault("build-name", "this");
    }

    /** Appends {@code measurement} to the {@code --results} file, if one was given. */
    private static void record(Map<String, String> options, Measurement measurement) throws java.io.IOException {
        if (!options.containsKey("results")) {
            return;
        }
        Path results = Path.of(options.get("results"));
        List<String> lines = new ArrayList<>();
        if (!Files.exists(results)) {
            lines.add(Measurement.HEADER);
        }
        lines.add(measurement.line());
        Files.write(results, lines, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    private static void deltaCost(Map<String, String> options, List<String> report) throws Exception {
        int partitions = Integer.parseInt(options.getOrDefault("partitions", "6"));
        long keys = Long.parseLong(options.getOrDefault("delta-keys", "200000"));
        double rate = Double.parseDouble(options.getOrDefault("delta-rate", "1000"));
        long commitIntervalMs = Long.parseLong(options.getOrDefault("delta-commit-interval-ms", "10000"));
        int commits = Integer.parseInt(options.getOrDefault("delta-commits", "30"));
        report.add("");
        report.add("## Delta log per commit (the driver's thread runs DeltaMirror.sync after each Iceberg commit)");
        for (String mode : list(options.getOrDefault("delta-modes", "append,upsert"))) {
            DeltaCost.Result result = DeltaCost.run(mode, partitions, keys, rate, commitIntervalMs, commits);
            report.addAll(DeltaCost.summary(result));
            report.add("  " + result.initial().line(mode) + " (first publish of the loaded table)");
        }
    }

    /** {@code median [min-max]} of {@code figure} over {@code runs}. */
    private static <T> String range(List<T> runs, ToDoubleFunction<T> figure, String format) {
        return String.format(Locale.ROOT, format + " [" + format + "-" + format + "]", Stats.median(runs, figure),
                Stats.min(runs, figure), Stats.max(runs, figure));
    }

    private static List<String> list(String text) {
        return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }
}
