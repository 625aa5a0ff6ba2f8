package io.floe.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point: runs the same produce/consume workload, then the steady-rate latency phase, on Apache Kafka and on
 * Floe, interleaved round by round (Kafka, Floe, Kafka, Floe, ...), and prints a Markdown report (also written to
 * {@code --out}).
 * See {@link BenchmarkOptions#USAGE}; {@code benchmarks/run-e2e.sh} resolves the classpaths and runs it.
 */
public final class ProduceConsumeBenchmark {

    private static final Logger LOGGER = LoggerFactory.getLogger(ProduceConsumeBenchmark.class);
    private static final String BASELINE = "kafka";

    private final BenchmarkOptions options;
    private final Path workDir;
    private final Workload workload;
    private final AtomicReference<Target> running = new AtomicReference<>();

    private ProduceConsumeBenchmark(BenchmarkOptions options, Path workDir, Workload workload) {
        this.options = options;
        this.workDir = workDir;
        this.workload = workload;
    }

    public static void main(String[] args) throws Exception {
        BenchmarkOptions options;
        try {
            options = BenchmarkOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path workDir = Files.createTempDirectory("floe-e2e-");
        PerfRunner perf = new PerfRunner(options, workDir);
        ProduceConsumeBenchmark benchmark = new ProduceConsumeBenchmark(options, workDir, new Workload(options, perf));
        Runtime.getRuntime().addShutdownHook(new Thread(benchmark::stopRunning, "stop-on-exit"));
        String candidate = options.kafkaOnly() ? "kafka-b" : "floe";
        List<SystemRun> runs = benchmark.runRounds(candidate);

        Report report = new Report(
                options, BASELINE, candidate, perf.commandLines(Workload.TOPIC, Workload.LATENCY_TOPIC), runs);
        String markdown = report.markdown(command(options), machine());
        System.out.println();
        System.out.println(markdown);
        if (options.markdownOut().isPresent()) {
            Files.writeString(options.markdownOut().get(), markdown);
            LOGGER.info("wrote report file={}", options.markdownOut().get().toAbsolutePath());
        }
        if (options.keepDirs()) {
            LOGGER.info("kept logs and data dir={}", workDir);
        } else {
            deleteRecursively(workDir);
        }
    }

    private List<SystemRun> runRounds(String candidate) throws InterruptedException {
        List<SystemRun> runs = new ArrayList<>();
        for (int round = 1; round <= options.rounds(); round++) {
            runs.add(runOne(round, BASELINE));
            runs.add(runOne(round, candidate));
            Report partial = new Report(options, BASELINE, candidate, List.of(), runs);
            System.out.println(partial.roundTable(round));
        }
        return runs;
    }

    /** Starts one system fresh, runs the workload, stops it and deletes its data. */
    private SystemRun runOne(int round, String label) throws InterruptedException {
        Path dir = workDir.resolve("round-" + round + "-" + label);
        LOGGER.info("round={} system={} starting dir={}", round, label, dir);
        Target target;
        try {
            target = label.equals("floe") ? FloeAgent.start(options, dir) : KafkaBroker.start(label, options, dir);
        } catch (IOException | RuntimeException e) {
            LOGGER.error("round={} system={} did not start: {}", round, label, e.getMessage());
            return SystemRun.failedToStart(
                    round, label, e.getMessage().lines().findFirst().orElse(e.toString()));
        }
        running.set(target);
        try {
            SystemRun run = workload.run(round, target, dir);
            LOGGER.info(
                    "round={} system={} produce={} groupConsume={} assignConsume={} steady={}",
                    round,
                    label,
                    run.produce(),
                    run.groupConsume(),
                    run.assignConsume(),
                    run.latency());
            return run;
        } catch (RuntimeException e) {
            LOGGER.error("round={} system={} driver error", round, label, e);
            return SystemRun.driverError(round, label, e);
        } finally {
            target.stop();
            running.set(null);
            if (!options.keepDirs()) {
                deleteRecursively(dir.resolve("data"));
                deleteRecursively(dir.resolve("log-dirs"));
            }
        }
    }

    /**
     * Shutdown hook: a system or tool still running when the driver is interrupted must not outlive it. The system
     * gets a clean stop; tools are killed. Runs on a normal exit too, when there is nothing left to stop.
     */
    private void stopRunning() {
        Target target = running.getAndSet(null);
        if (target != null) {
            try {
                target.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ChildProcess.killAll();
        if (!options.keepDirs()) {
            deleteRecursively(workDir);
        }
    }

    /** The user-level command: run-e2e.sh passes its own command line in {@code floe.bench.command}. */
    private static String command(BenchmarkOptions options) {
        String fromScript = System.getProperty("floe.bench.command");
        if (fromScript != null && !fromScript.isBlank()) {
            return fromScript;
        }
        return "java " + ProduceConsumeBenchmark.class.getName() + " " + String.join(" ", options.commandLine());
    }

    private static String machine() {
        long memoryBytes = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        return String.format(
                java.util.Locale.ROOT,
                "%d cores, %.1f GiB RAM, %s %s, %s %s",
                Runtime.getRuntime().availableProcessors(),
                memoryBytes / (1024.0 * 1024 * 1024),
                System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"),
                System.getProperty("os.name"),
                System.getProperty("os.version"));
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOGGER.warn("cannot delete dir={} error={}", root, e.toString());
        }
    }
}
