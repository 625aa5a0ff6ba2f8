package io.floe.benchmarks.tableflow;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Compares builds measured in one run ({@code benchmarks/run-tableflow.sh --build before=DIR --build after=DIR}):
 * reads the results files the runs wrote ({@link Measurement}), and per phase and variant gives each build's medians
 * [min-max] of items per second, per Tableflow-thread CPU-second and per agent CPU-second, and each later build's
 * median as a ratio of the first build's. Builds appear in the order they were first measured, which the script
 * keeps as given on its command line. Usage: {@code BuildComparison [--out FILE] RESULTS...}.
 */
public final class BuildComparison {

    private BuildComparison() {}

    public static void main(String[] args) throws IOException {
        List<Path> files = new ArrayList<>();
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--out") && i + 1 < args.length) {
                out = Path.of(args[++i]);
            } else {
                files.add(Path.of(args[i]));
            }
        }
        List<Measurement> measurements = new ArrayList<>();
        for (Path file : files) {
            for (String line : Files.readAllLines(file)) {
                if (!line.isBlank() && !line.equals(Measurement.HEADER)) {
                    measurements.add(Measurement.parse(line));
                }
            }
        }
        List<String> report = compare(measurements);
        report.forEach(System.out::println);
        if (out != null) {
            Files.write(out, report);
        }
    }

    static List<String> compare(List<Measurement> measurements) {
        Set<String> builds = new LinkedHashSet<>();
        Map<String, Map<String, List<Measurement>>> byRow = new LinkedHashMap<>();
        for (Measurement m : measurements) {
            builds.add(m.build());
            byRow.computeIfAbsent(m.phase() + " " + m.variant(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(m.build(), k -> new ArrayList<>()).add(m);
        }
        String first = builds.iterator().next();
        List<String> report = new ArrayList<>();
        report.add("## Builds compared: " + String.join(", ", builds) + " (medians [min-max] over each build's runs;"
                + " ratios of medians to " + first + ")");
        report.add("");
        report.add("| phase | variant | build | runs | items | per second | per Tableflow-thread CPU-s"
                + " | per agent CPU-s | ratio per s | ratio per thread CPU-s | ratio per agent CPU-s |");
        report.add("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        byRow.forEach((row, perBuild) -> {
            List<Measurement> base = perBuild.get(first);
            for (String build : builds) {
                List<Measurement> runs = perBuild.get(build);
                if (runs == null) {
                    continue;
                }
                String[] names = row.split(" ", 2);
                report.add(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s |",
                        names[0], names[1], build, runs.size(), runs.get(0).items(),
                        range(runs, Measurement::perSecond), range(runs, Measurement::perThreadCpuSecond),
                        range(runs, Measurement::perProcessCpuSecond),
                        ratio(runs, base, Measurement::perSecond), ratio(runs, base, Measurement::perThreadCpuSecond),
                        ratio(runs, base, Measurement::perProcessCpuSecond)));
            }
        });
        return report;
    }

    private static String range(List<Measurement> runs, ToDoubleFunction<Measurement> figure) {
        return String.format(Locale.ROOT, "%.0f [%.0f-%.0f]", Stats.median(runs, figure), Stats.min(runs, figure),
                Stats.max(runs, figure));
    }

    private static String ratio(List<Measurement> runs, List<Measurement> base, ToDoubleFunction<Measurement> figure) {
        if (base == null || base == runs) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2f", Stats.median(runs, figure) / Stats.median(base, figure));
    }
}
