package io.floe.benchmarks.tableflow;

import java.util.Locale;

/**
 * One measured run as a line of the results file ({@code --results FILE}, tab-separated), so that runs of two
 * builds in separate JVMs can be compared afterwards ({@link BuildComparison}): which build and phase, the variant,
 * how many items it did (records materialized, or change events published), in how long, and the CPU of the
 * Tableflow thread and of the JVM less the driver's thread (the agent's, in-process).
 */
record Measurement(
        String build,
        String phase,
        String variant,
        long items,
        double seconds,
        double threadCpuSeconds,
        double processCpuSeconds) {

    static final String HEADER = "build\tphase\tvariant\titems\tseconds\tthreadCpuSeconds\tprocessCpuSeconds";

    static Measurement of(String build, CatchUp run) {
        return new Measurement(build, "throughput", run.variant().toString(), run.records(), run.seconds(),
                run.threadCpuSeconds(), run.processCpuSeconds());
    }

    static Measurement of(String build, ChangePublication run) {
        return new Measurement(build, "changes", run.variant().toString(), run.changes(), run.seconds(),
                run.threadCpuSeconds(), run.processCpuSeconds());
    }

    static Measurement parse(String line) {
        String[] fields = line.split("\t");
        if (fields.length != 7) {
            throw new IllegalArgumentException("a results line has 7 tab-separated fields, not: " + line);
        }
        return new Measurement(fields[0], fields[1], fields[2], Long.parseLong(fields[3]),
                Double.parseDouble(fields[4]), Double.parseDouble(fields[5]), Double.parseDouble(fields[6]));
    }

    String line() {
        return String.format(Locale.ROOT, "%s\t%s\t%s\t%d\t%.4f\t%.4f\t%.4f", build, phase, variant, items, seconds,
                threadCpuSeconds, processCpuSeconds);
    }

    double perSecond() {
        return items / seconds;
    }

    double perThreadCpuSecond() {
        return items / threadCpuSeconds;
    }

    double perProcessCpuSecond() {
        return items / processCpuSeconds;
    }
}
