package io.floe.benchmarks.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Command-line options of {@link ProduceConsumeBenchmark}, validated.
 *
 * @param kafkaClasspath classpath of the broker and Kafka's perf tools (kafka_2.13, kafka-tools, log4j binding)
 * @param driverClasspath classpath of this module, for the assign()-based consumer child JVM
 * @param floeScript the {@code bin/floe} launcher; ignored with {@code kafkaOnly}
 * @param kafkaOnly put a second Kafka broker in Floe's slot, to validate the driver and show run-to-run noise
 */
record BenchmarkOptions(
        long records,
        int recordSizeBytes,
        int partitions,
        int rounds,
        long warmupRecords,
        ConsumerMode consumerMode,
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
              --consumer MODE          perf | assign | both (default both)
              --kafka-only             a second Kafka broker takes Floe's slot (validates the driver, shows noise)
              --floe-script PATH       Floe launcher (default bin/floe)
              --flush-interval-ms N    passed to `floe agent`
              --floe-arg ARG           extra argument for `floe agent` (repeatable)
              --floe-java-opts OPTS    JVM options for the agent, passed as FLOE_JAVA_OPTS (default: none, JVM defaults)
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
        ConsumerMode consumerMode = ConsumerMode.BOTH;
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
                case "--consumer" -> consumerMode = consumerMode(value);
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
            require(warmupRecords < records,
                    "--warmup-records " + warmupRecords + " must be below --records " + records);
            require(kafkaOnly || Files.isRegularFile(floeScript),
                    "Floe launcher " + floeScript.toAbsolutePath() + " does not exist (or use --kafka-only)");
            return new BenchmarkOptions(records, recordSizeBytes, partitions, rounds, warmupRecords, consumerMode,
                    kafkaOnly, kafkaClasspath, driverClasspath, floeScript.toAbsolutePath(), flushIntervalMs,
                    List.copyOf(floeExtraArgs), floeJavaOptions, Duration.ofSeconds(startTimeoutS),
                    Duration.ofSeconds(toolTimeoutS),
                    Duration.ofMillis(consumeTimeoutMs), Optional.ofNullable(out), keepDirs, commandLine);
        }

        private static ConsumerMode consumerMode(String value) {
            try {
                return ConsumerMode.valueOf(value.toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--consumer " + value + " is not one of "
                        + Arrays.toString(ConsumerMode.values()).toLowerCase(java.util.Locale.ROOT), e);
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
