package io.floe.benchmarks.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Command-line options of {@link ProduceConsumeBenchmark}, validated.
 *
 * @param kafkaClasspath classpath of the broker and Kafka's perf tools (kafka_2.13, kafka-tools, log4j binding)
 * @param driverClasspath classpath of this module, for the assign()-based consumer child JVM
 * @param floeScript the {@code bin/floe} launcher; ignored with {@code kafkaOnly}
 * @param kafkaOnly put a second Kafka broker in Floe's slot, to validate the driver and show run-to-run noise
 * @param transactionDurationMs with a value above 0, the saturation run's producer is transactional
 *     (ProducerPerformance's {@code --transactional-id} and {@code --transaction-duration-ms}); 0 when it is not
 * @param latencyRate records/s of the steady-rate latency phase run after the consumers; 0 when it is off
 * @param latencyRecords records produced in that phase; 0 when it is off
 * @param latencyWarmupRecords the first records of that phase, left out of its figures (ProducerPerformance's
 *     {@code --warmup-records}): the tool's JVM starts cold, and its first seconds' latencies are not steady
 */
record BenchmarkOptions(
        long records,
        int recordSizeBytes,
        int partitions,
        int rounds,
        long warmupRecords,
        long transactionDurationMs,
        ConsumerMode consumerMode,
        long latencyRate,
        long latencyRecords,
        long latencyWarmupRecords,
        boolean kafkaOnly,
        String kafkaClasspath,
        String driverClasspath,
        Path floeScript,
        OptionalLong floeFlushIntervalMs,
        List<String> floeExtraArgs,
        String floeJavaOptions,
        Duration startTimeout,
        Duration toolTimeout,
        Duration consumeIdleTimeout,
        Optional<Path> markdownOut,
        boolean keepDirs,
        List<String> commandLine) {

    /** The agent's default flush interval (Setting.Defaults.FLUSH_INTERVAL_MS in the cli module). */
    static final long FLOE_DEFAULT_FLUSH_INTERVAL_MS = 20;
    /** Records of the steady-rate phase per record/s of its rate when --latency-records is not given: ~15 s. */
    static final long LATENCY_SECONDS = 15;

    private static final String FLUSH_INTERVAL_FLAG = "--flush-interval-ms";
    private static final String FLUSH_INTERVAL_ENV = "FLOE_FLUSH_INTERVAL_MS";

    /** Whether the steady-rate latency phase runs. */
    boolean latencyPhase() {
        return latencyRate > 0;
    }

    /** A flush interval and where it comes from, for the report. */
    record FlushInterval(long millis, String source) {}

    /**
     * The flush interval the Floe agent runs with, resolved as the agent does: a flag (the last
     * {@code --flush-interval-ms} of the agent's arguments, as {@link FloeAgent#command} builds them), else
     * {@code FLOE_FLUSH_INTERVAL_MS} in the environment the agent inherits, else the agent's default. Empty when the
     * driver cannot know it: a {@code --config} file among the --floe-arg arguments may set it, or a value is not
     * a number.
     */
    Optional<FlushInterval> floeFlushInterval(Map<String, String> environment) {
        String value = floeFlushIntervalMs.isPresent() ? Long.toString(floeFlushIntervalMs.getAsLong()) : null;
        String source = FLUSH_INTERVAL_FLAG;
        boolean configFile = false;
        for (int i = 0; i < floeExtraArgs.size(); i++) {
            String arg = floeExtraArgs.get(i);
            if (arg.startsWith(FLUSH_INTERVAL_FLAG + "=")) {
                value = arg.substring(FLUSH_INTERVAL_FLAG.length() + 1);
                source = "--floe-arg";
            } else if (arg.equals(FLUSH_INTERVAL_FLAG) && i + 1 < floeExtraArgs.size()) {
                value = floeExtraArgs.get(++i);
                source = "--floe-arg";
            } else if (arg.equals("--config") || arg.startsWith("--config=")) {
                configFile = true;
            }
        }
        if (value == null && environment.get(FLUSH_INTERVAL_ENV) != null) {
            value = environment.get(FLUSH_INTERVAL_ENV);
            source = FLUSH_INTERVAL_ENV;
        }
        if (value == null) {
            return configFile
                    ? Optional.empty()
                    : Optional.of(new FlushInterval(FLOE_DEFAULT_FLUSH_INTERVAL_MS, "the agent's default"));
        }
        try {
            return Optional.of(new FlushInterval(Long.parseLong(value.strip()), source));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Which consumer measurements run after the produce phase. */
    enum ConsumerMode {
        /** Kafka's ConsumerPerformance: joins a group and commits offsets. */
        PERF,
        /** This module's {@link AssignConsumer}: assign() to every partition, no group. */
        ASSIGN,
        BOTH;

        boolean runsPerf() {
            return this != ASSIGN;
        }

        boolean runsAssign() {
            return this != PERF;
        }
    }

    static final String USAGE = """
            Usage: ProduceConsumeBenchmark --kafka-classpath CP --driver-classpath CP [options]
              --records N              records produced and consumed per run (default 2000000)
              --record-size B          record value size in bytes (default 1024)
              --partitions P           partitions of the benchmark topic (default 6)
              --rounds R               interleaved rounds, Kafka then Floe in each (default 3)
              --warmup-records W       passed to ProducerPerformance, which then reports steady-state figures (default 0)
              --transaction-duration-ms T  make the saturation run's producer transactional, committing every T ms
                                       (ProducerPerformance's --transactional-id and --transaction-duration-ms; default 0: off)
              --consumer MODE          perf | assign | both (default both)
              --latency-rate N         records/s of the steady-rate latency phase run after the consumers, into
                                       topic bench-latency; 0 skips it (default 5000)
              --latency-records M      records of the steady-rate phase (default 15 × the rate, ~15 s)
              --latency-warmup-records W
                                       first records of the steady-rate phase, left out of its figures while the
                                       tool's JVM warms up (default a fifth of --latency-records, ~3 s)
              --kafka-only             a second Kafka broker takes Floe's slot (validates the driver, shows noise)
              --floe-script PATH       Floe launcher (default bin/floe)
              --flush-interval-ms N    passed to `floe agent`
              --floe-arg ARG           extra argument for `floe agent` (repeatable)
              --floe-java-opts OPTS    JVM options for the agent, passed as FLOE_JAVA_OPTS (default: none:
                                       bin/floe's -Xms1g -Xmx1g and Kafka's G1 settings)
              --start-timeout-s S      readiness wait for each system (default 120)
              --tool-timeout-s S       wall-clock limit of each perf tool run (default 900)
              --consume-timeout-ms MS  longest gap between consumed records before a consumer gives up (default 30000)
              --out FILE               also write the report as Markdown to FILE
              --keep-dirs              keep the temp directories (logs, data) after the run
            """;

    static BenchmarkOptions parse(String[] args) {
        Builder b = new Builder();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "--kafka-only" -> b.kafkaOnly = true;
                case "--keep-dirs" -> b.keepDirs = true;
                case "--help", "-h" -> throw new IllegalArgumentException(USAGE);
                default -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("option " + flag + " needs a value\n" + USAGE);
                    }
                    b.set(flag, args[++i]);
                }
            }
        }
        return b.build(List.of(args));
    }

    /** Mutable collector for {@link #parse}; validation happens once in {@link #build}. */
    private static final class Builder {
        long records = 2_000_000;
        int recordSizeBytes = 1024;
        int partitions = 6;
        int rounds = 3;
        long warmupRecords;
        long transactionDurationMs;
        ConsumerMode consumerMode = ConsumerMode.BOTH;
        long latencyRate = 5_000;
        Long latencyRecords;
        Long latencyWarmupRecords;
        boolean kafkaOnly;
        boolean keepDirs;
        String kafkaClasspath;
        String driverClasspath;
        Path floeScript = Path.of("bin", "floe");
        OptionalLong flushIntervalMs = OptionalLong.empty();
        final List<String> floeExtraArgs = new ArrayList<>();
        String floeJavaOptions = "";
        long startTimeoutS = 120;
        long toolTimeoutS = 900;
        long consumeTimeoutMs = 30_000;
        Path out;

        void set(String flag, String value) {
            switch (flag) {
                case "--records" -> records = positive(flag, value);
                case "--record-size" -> recordSizeBytes = Math.toIntExact(positive(flag, value));
                case "--partitions" -> partitions = Math.toIntExact(positive(flag, value));
                case "--rounds" -> rounds = Math.toIntExact(positive(flag, value));
                case "--warmup-records" -> warmupRecords = nonNegative(flag, value);
                case "--transaction-duration-ms" -> transactionDurationMs = nonNegative(flag, value);
                case "--consumer" -> consumerMode = consumerMode(value);
                case "--latency-rate" -> latencyRate = nonNegative(flag, value);
                case "--latency-records" -> latencyRecords = positive(flag, value);
                case "--latency-warmup-records" -> latencyWarmupRecords = nonNegative(flag, value);
                case "--kafka-classpath" -> kafkaClasspath = value;
                case "--driver-classpath" -> driverClasspath = value;
                case "--floe-script" -> floeScript = Path.of(value);
                case "--flush-interval-ms" -> flushIntervalMs = OptionalLong.of(positive(flag, value));
                case "--floe-arg" -> floeExtraArgs.add(value);
                case "--floe-java-opts" -> floeJavaOptions = value;
                case "--start-timeout-s" -> startTimeoutS = positive(flag, value);
                case "--tool-timeout-s" -> toolTimeoutS = positive(flag, value);
                case "--consume-timeout-ms" -> consumeTimeoutMs = positive(flag, value);
                case "--out" -> out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + flag + "\n" + USAGE);
            }
        }

        BenchmarkOptions build(List<String> commandLine) {
            require(kafkaClasspath != null && !kafkaClasspath.isBlank(), "--kafka-classpath is required");
            require(driverClasspath != null && !driverClasspath.isBlank(), "--driver-classpath is required");
            require(
                    warmupRecords < records,
                    "--warmup-records " + warmupRecords + " must be below --records " + records);
            require(
                    kafkaOnly || Files.isRegularFile(floeScript),
                    "Floe launcher " + floeScript.toAbsolutePath() + " does not exist (or use --kafka-only)");
            long steadyRecords = latencyRate == 0
                    ? 0
                    : latencyRecords != null ? latencyRecords : Math.multiplyExact(latencyRate, LATENCY_SECONDS);
            long steadyWarmup =
                    latencyRate == 0 ? 0 : latencyWarmupRecords != null ? latencyWarmupRecords : steadyRecords / 5;
            require(
                    steadyWarmup == 0 || steadyWarmup < steadyRecords,
                    "--latency-warmup-records " + steadyWarmup + " must be below --latency-records " + steadyRecords);
            long steadySeconds = latencyRate == 0 ? 0 : steadyRecords / latencyRate;
            require(
                    steadySeconds < toolTimeoutS,
                    "--latency-records " + steadyRecords + " at --latency-rate " + latencyRate + " take "
                            + steadySeconds + " s, not below --tool-timeout-s " + toolTimeoutS);
            return new BenchmarkOptions(
                    records,
                    recordSizeBytes,
                    partitions,
                    rounds,
                    warmupRecords,
                    transactionDurationMs,
                    consumerMode,
                    latencyRate,
                    steadyRecords,
                    steadyWarmup,
                    kafkaOnly,
                    kafkaClasspath,
                    driverClasspath,
                    floeScript.toAbsolutePath(),
                    flushIntervalMs,
                    List.copyOf(floeExtraArgs),
                    floeJavaOptions,
                    Duration.ofSeconds(startTimeoutS),
                    Duration.ofSeconds(toolTimeoutS),
                    Duration.ofMillis(consumeTimeoutMs),
                    Optional.ofNullable(out),
                    keepDirs,
                    commandLine);
        }

        private static ConsumerMode consumerMode(String value) {
            try {
                return ConsumerMode.valueOf(value.toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "--consumer " + value + " is not one of "
                                + Arrays.toString(ConsumerMode.values()).toLowerCase(java.util.Locale.ROOT),
                        e);
            }
        }

        private static long positive(String flag, String value) {
            long v = number(flag, value);
            require(v > 0, flag + " " + value + " must be positive");
            return v;
        }

        private static long nonNegative(String flag, String value) {
            long v = number(flag, value);
            require(v >= 0, flag + " " + value + " must not be negative");
            return v;
        }

        private static long number(String flag, String value) {
            try {
                return Long.parseLong(value.replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " " + value + " is not a whole number", e);
            }
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
