package io.floe.benchmarks.cluster;

import io.floe.benchmarks.e2e.ChildProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the load tools ({@link LoadProducer}, {@link TailConsumer}, {@link GroupConsumer}) as child JVMs on the
 * driver's classpath and reads their results: the summary line each prints last and the latency histograms they
 * write. A child JVM per tool keeps their GC and JIT apart from the driver's.
 */
final class Tools {

    private static final Logger LOGGER = LoggerFactory.getLogger(Tools.class);
    private static final List<String> JVM = List.of(
            "-Xmx512m", "-XX:+UseG1GC", "-Djava.awt.headless=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    static final String TOPIC = "bench";
    static final String WARMUP_TOPIC = "bench-warmup";
    static final String STEADY_TOPIC = "bench-steady";
    static final String GROUP = "bench-catch-up";

    /** The producers' results, merged over the producer JVMs. */
    record Produced(
            long records,
            long bytes,
            long errors,
            long startEpochMs,
            long endEpochMs,
            LatencyHistogram latency,
            List<String> failures) {
        double seconds() {
            return Math.max(1, endEpochMs - startEpochMs) / 1000.0;
        }
    }

    /** The tail consumer's result. */
    record Tailed(
            long records,
            long bytes,
            long firstEpochMs,
            long lastEpochMs,
            LatencyHistogram latency,
            Optional<String> failure) {
        double seconds() {
            return Math.max(1, lastEpochMs - firstEpochMs) / 1000.0;
        }
    }

    /** The consumer group's result. */
    record CaughtUp(long records, long bytes, long joinMs, long elapsedMs, Optional<String> failure) {}

    private final ClusterOptions options;
    private final Path dir;

    Tools(ClusterOptions options, Path dir) {
        this.options = options;
        this.dir = dir;
    }

    /** The tools' command lines, classpath left out, for the report. */
    List<String> commandLines(String bootstrap) {
        List<String> lines = new ArrayList<>();
        if (options.warmupRecords() > 0) {
            lines.add(LoadProducer.class.getSimpleName() + " "
                    + String.join(
                            " ",
                            producerArgs(
                                    bootstrap, WARMUP_TOPIC, options.warmupRecords(), Path.of("warmup-latency.txt")))
                    + " (warm-up, not measured)");
        }
        lines.add(LoadProducer.class.getSimpleName() + " "
                + String.join(
                        " ",
                        producerArgs(
                                bootstrap,
                                TOPIC,
                                options.records() / options.producerProcesses(),
                                Path.of("latency-N.txt"))));
        if (options.tailConsumer()) {
            lines.add(TailConsumer.class.getSimpleName() + " " + String.join(" ", tailArgs(bootstrap)));
        }
        lines.add(GroupConsumer.class.getSimpleName() + " " + String.join(" ", groupArgs(bootstrap)));
        if (options.steadyRecords() > 0) {
            lines.add(LoadProducer.class.getSimpleName() + " "
                    + String.join(" ", steadyArgs(bootstrap, Path.of("steady-latency.txt"))));
        }
        return lines;
    }

    private List<String> steadyArgs(String bootstrap, Path histogram) {
        List<String> args = new ArrayList<>(List.of(
                bootstrap,
                STEADY_TOPIC,
                Long.toString(options.steadyRecords()),
                Integer.toString(options.recordSizeBytes()),
                Integer.toString(options.producers()),
                histogram.toString(),
                "--rate=" + options.steadyRate(),
                "--skip-records=" + options.steadyRecords() / 5));
        args.addAll(options.producerPropertyArgs());
        return args;
    }

    private List<String> producerArgs(String bootstrap, String topic, long records, Path histogram) {
        List<String> args = new ArrayList<>(List.of(
                bootstrap,
                topic,
                Long.toString(records),
                Integer.toString(options.recordSizeBytes()),
                Integer.toString(options.producers()),
                histogram.toString()));
        args.addAll(options.producerPropertyArgs());
        return args;
    }

    private List<String> tailArgs(String bootstrap) {
        return List.of(
                bootstrap,
                TOPIC,
                Long.toString(options.records()),
                Long.toString(options.consumeIdleTimeout().toMillis()),
                dir.resolve("tail-latency.txt").toString(),
                Integer.toString(options.tailConsumers()));
    }

    private List<String> groupArgs(String bootstrap) {
        return List.of(
                bootstrap,
                TOPIC,
                GROUP,
                Long.toString(options.records()),
                Integer.toString(options.groupMembers()),
                Long.toString(options.consumeIdleTimeout().toMillis()));
    }

    ChildProcess startTail(String bootstrap) {
        return start("tail-consumer", TailConsumer.class, tailArgs(bootstrap), dir.resolve("tail-consumer.log"));
    }

    /** Waits until the tail consumer holds its positions (its ready line); throws when it exits or times out. */
    void awaitTailReady(ChildProcess tail, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (tail.logLines().stream().anyMatch(line -> line.strip().equals(TailConsumer.READY_LINE))) {
                return;
            }
            if (!tail.isAlive()) {
                throw new IllegalStateException("tail consumer exited before it was ready:\n" + tail.logTail(20));
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(
                "tail consumer not ready after " + timeout.toSeconds() + " s:\n" + tail.logTail(20));
    }

    /** The steady-rate phase: one producer JVM at {@code --steady-rate}, its first fifth left out of the latencies. */
    Produced steady(String bootstrap) throws InterruptedException {
        ChildProcess process = start(
                "steady-producer",
                LoadProducer.class,
                steadyArgs(bootstrap, dir.resolve("steady-latency.txt")),
                dir.resolve("steady-producer.log"));
        return collect(List.of(process), List.of(dir.resolve("steady-latency.txt")));
    }

    /** Runs the producer JVMs at once, each with its share of the records, and merges their results. */
    Produced produce(String bootstrap) throws InterruptedException {
        List<ChildProcess> processes = new ArrayList<>();
        List<Path> histograms = new ArrayList<>();
        for (int p = 0; p < options.producerProcesses(); p++) {
            long share = options.records() / options.producerProcesses()
                    + (p < options.records() % options.producerProcesses() ? 1 : 0);
            Path histogram = dir.resolve("producer-" + p + "-latency.txt");
            histograms.add(histogram);
            processes.add(start(
                    "producer-" + p,
                    LoadProducer.class,
                    producerArgs(bootstrap, TOPIC, share, histogram),
                    dir.resolve("producer-" + p + ".log")));
        }
        return collect(processes, histograms);
    }

    private Produced collect(List<ChildProcess> processes, List<Path> histograms) throws InterruptedException {
        long records = 0;
        long bytes = 0;
        long errors = 0;
        long start = Long.MAX_VALUE;
        long end = 0;
        LatencyHistogram latency = new LatencyHistogram();
        List<String> failures = new ArrayList<>();
        for (int p = 0; p < processes.size(); p++) {
            ChildProcess process = processes.get(p);
            int exit = await(process, options.toolTimeout(), failures);
            Optional<ToolSummary> summary = ToolSummary.parse(process.logLines(), LoadProducer.SUMMARY_PREFIX);
            if (summary.isEmpty()) {
                failures.add(process.name() + " exited " + exit + " without a summary: " + process.logTail(5));
                continue;
            }
            records += summary.get().longValue("records");
            bytes += summary.get().longValue("bytes");
            errors += summary.get().longValue("errors");
            start = Math.min(start, summary.get().longValue("start.epoch.ms"));
            end = Math.max(end, summary.get().longValue("end.epoch.ms"));
            if (exit != 0) {
                failures.add(process.name() + " exited " + exit + ": " + process.logTail(3));
            }
            read(histograms.get(p)).ifPresent(latency::add);
        }
        return new Produced(records, bytes, errors, start == Long.MAX_VALUE ? 0 : start, end, latency, failures);
    }

    /**
     * Produces {@code --warmup-records} into a topic of its own with one producer JVM, and returns a failure, if any.
     * Its only purpose is to warm the agents', S3Proxy's and PostgreSQL's code paths before anything is measured.
     */
    Optional<String> warmUp(String bootstrap) throws InterruptedException {
        ChildProcess process = start(
                "warm-up",
                LoadProducer.class,
                producerArgs(bootstrap, WARMUP_TOPIC, options.warmupRecords(), dir.resolve("warmup-latency.txt")),
                dir.resolve("warmup.log"));
        List<String> failures = new ArrayList<>();
        int exit = await(process, options.toolTimeout(), failures);
        if (exit != 0 && failures.isEmpty()) {
            failures.add("exited " + exit + ": " + process.logTail(3));
        }
        return failures.stream().findFirst();
    }

    Tailed awaitTail(ChildProcess tail) throws InterruptedException {
        List<String> failures = new ArrayList<>();
        int exit = await(tail, options.toolTimeout(), failures);
        Optional<ToolSummary> summary = ToolSummary.parse(tail.logLines(), TailConsumer.SUMMARY_PREFIX);
        if (summary.isEmpty()) {
            return new Tailed(
                    0,
                    0,
                    0,
                    0,
                    new LatencyHistogram(),
                    Optional.of("exited " + exit + " without a summary: " + tail.logTail(5)));
        }
        Optional<String> failure =
                exit == 0 ? Optional.empty() : Optional.of("exited " + exit + ": " + tail.logTail(3));
        return new Tailed(
                summary.get().longValue("records"),
                summary.get().longValue("bytes"),
                summary.get().longValue("first.epoch.ms"),
                summary.get().longValue("last.epoch.ms"),
                read(dir.resolve("tail-latency.txt")).orElseGet(LatencyHistogram::new),
                failure);
    }

    CaughtUp catchUp(String bootstrap) throws InterruptedException {
        ChildProcess group =
                start("group-consumer", GroupConsumer.class, groupArgs(bootstrap), dir.resolve("group-consumer.log"));
        List<String> failures = new ArrayList<>();
        int exit = await(group, options.toolTimeout(), failures);
        Optional<ToolSummary> summary = ToolSummary.parse(group.logLines(), GroupConsumer.SUMMARY_PREFIX);
        if (summary.isEmpty()) {
            return new CaughtUp(0, 0, 0, 0, Optional.of("exited " + exit + " without a summary: " + group.logTail(5)));
        }
        return new CaughtUp(
                summary.get().longValue("records"),
                summary.get().longValue("bytes"),
                summary.get().longValue("join.ms"),
                summary.get().longValue("elapsed.ms"),
                exit == 0 ? Optional.empty() : Optional.of("exited " + exit + ": " + group.logTail(3)));
    }

    private ChildProcess start(String name, Class<?> main, List<String> args, Path log) {
        LOGGER.info("running tool={} args={} log={}", name, String.join(" ", args), log);
        return ChildProcess.start(
                name, ChildProcess.javaCommand(options.driverClasspath(), JVM, main.getName(), args), log, Map.of());
    }

    private static int await(ChildProcess process, Duration timeout, List<String> failures)
            throws InterruptedException {
        try {
            return process.awaitExit(timeout);
        } catch (IllegalStateException e) {
            failures.add(e.getMessage());
            return -1;
        }
    }

    private static Optional<LatencyHistogram> read(Path file) {
        try {
            return Optional.of(LatencyHistogram.read(file));
        } catch (IOException | RuntimeException e) {
            LOGGER.warn("cannot read latency histogram file={} error={}", file, e.toString());
            return Optional.empty();
        }
    }
}
