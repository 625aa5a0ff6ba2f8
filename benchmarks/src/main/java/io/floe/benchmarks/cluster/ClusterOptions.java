package io.floe.benchmarks.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Command-line options of {@link ClusterBenchmark}, validated.
 *
 * @param warmupRecords records produced into a topic of their own before anything is measured, to warm the
 *     agents', S3Proxy's and PostgreSQL's code paths; 0 for none
 * @param producers KafkaProducers in each producer JVM, each on a thread of its own
 * @param producerProcesses producer JVMs, each sending {@code records / producerProcesses}
 * @param producerProperties the producers' properties, defaults first, then {@code --producer-prop} overrides
 * @param groupMembers members of the catch-up consumer group (threads of one JVM)
 * @param tailConsumers KafkaConsumers at the tail during the produce phase (threads of one JVM), each assigned a share
 *     of the partitions
 * @param steadyRate records/s of the steady-rate phase after the catch-up (latency without the producers' own
 *     queueing; flushes at the timer's pace); 0 when it is off
 * @param steadySeconds length of the steady-rate phase
 * @param idleSeconds length of the idle phase before producing, which gives the baseline rates (heartbeats)
 * @param pgDurable PostgreSQL with fsync and synchronous commit (its defaults) or without (the tests' settings)
 * @param agentArguments extra arguments for every {@code floe agent}
 */
record ClusterOptions(
        long records,
        long warmupRecords,
        int recordSizeBytes,
        int partitions,
        int agents,
        int producers,
        int producerProcesses,
        Map<String, String> producerProperties,
        int groupMembers,
        boolean tailConsumer,
        int tailConsumers,
        long steadyRate,
        int steadySeconds,
        int idleSeconds,
        boolean pgDurable,
        List<String> agentArguments,
        String floeJavaOptions,
        Path floeScript,
        String driverClasspath,
        String s3proxyClasspath,
        Duration startTimeout,
        Duration toolTimeout,
        Duration consumeIdleTimeout,
        Optional<Path> markdownOut,
        boolean keepDirs,
        List<String> commandLine) {

    /** The producers' properties unless overridden: Kafka's durable defaults spelled out, batching as in run-e2e.sh. */
    static final Map<String, String> PRODUCER_DEFAULTS = Collections.unmodifiableMap(defaults());

    private static Map<String, String> defaults() {
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("acks", "all");
        defaults.put("enable.idempotence", "true");
        defaults.put("linger.ms", "5");
        defaults.put("batch.size", "131072");
        return defaults;
    }

    /** Records of the steady-rate phase: its rate times its length; 0 when it is off. */
    long steadyRecords() {
        return steadyRate * steadySeconds;
    }

    List<String> producerPropertyArgs() {
        List<String> args = new ArrayList<>();
        producerProperties.forEach((key, value) -> args.add(key + "=" + value));
        return args;
    }

    /** The default warm-up is a tenth of the records, at most this many. */
    static final long WARMUP_RECORDS_MAX = 100_000;

    static final String USAGE = """
            Usage: ClusterBenchmark --driver-classpath CP --s3proxy-classpath CP [options]
              --records N              records produced (and read by each consumer) (default 1000000)
              --warmup-records W       records produced into topic bench-warmup before anything is measured, to warm
                                       the agents, S3Proxy and PostgreSQL (default a tenth of --records, at most
                                       100000; 0 for none)
              --record-size B          record value size in bytes, no key (default 1024)
              --partitions P           partitions of the benchmark topic (default 24)
              --agents N               Floe agents sharing the stores (default 3)
              --producers N            KafkaProducers per producer JVM, each on its own thread (default 4)
              --producer-processes N   producer JVMs (default 1)
              --producer-prop K=V      producer property (repeatable); defaults acks=all enable.idempotence=true
                                       linger.ms=5 batch.size=131072
              --group-members N        members of the catch-up consumer group (default 3)
              --tail-consumers N       consumers at the tail during the produce phase, threads of one JVM (default 3)
              --no-tail-consumer       no consumer at the tail during the produce phase
              --steady-rate N          records/s of the steady-rate phase after the catch-up, into topic
                                       bench-steady; 0 skips it (default 2000)
              --steady-seconds S       length of the steady-rate phase; its first fifth is left out of the
                                       latencies (default 30)
              --idle-seconds S         idle phase before producing, for baseline rates (default 10)
              --pg-durable true|false  PostgreSQL fsync and synchronous_commit on (default true)
              --agent-arg ARG          extra argument for every `floe agent` (repeatable), e.g. --agent-arg
                                       --flush-interval-ms=100
              --floe-java-opts OPTS    FLOE_JAVA_OPTS for the agents (default: none, bin/floe's 1 GiB heap)
              --floe-script PATH       Floe launcher (default bin/floe)
              --start-timeout-s S      wait for the stores and agents (default 180)
              --tool-timeout-s S       wall-clock limit of each producer and consumer run (default 1800)
              --consume-timeout-ms MS  longest gap between consumed records before a consumer gives up (default 60000)
              --out FILE               also write the report as Markdown to FILE
              --keep-dirs              keep the temp directory (logs, stores) after the run
            """;

    static ClusterOptions parse(String[] args) {
        Builder b = new Builder();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "--no-tail-consumer" -> b.tailConsumer = false;
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
        long records = 1_000_000;
        Long warmupRecords;
        int recordSizeBytes = 1024;
        int partitions = 24;
        int agents = 3;
        int producers = 4;
        int producerProcesses = 1;
        final Map<String, String> producerProperties = new LinkedHashMap<>(PRODUCER_DEFAULTS);
        int groupMembers = 3;
        boolean tailConsumer = true;
        int tailConsumers = 3;
        long steadyRate = 2_000;
        int steadySeconds = 30;
        int idleSeconds = 10;
        boolean pgDurable = true;
        final List<String> agentArguments = new ArrayList<>();
        String floeJavaOptions = "";
        Path floeScript = Path.of("bin", "floe");
        String driverClasspath;
        String s3proxyClasspath;
        long startTimeoutS = 180;
        long toolTimeoutS = 1800;
        long consumeTimeoutMs = 60_000;
        Path out;
        boolean keepDirs;

        void set(String flag, String value) {
            switch (flag) {
                case "--records" -> records = positive(flag, value);
                case "--warmup-records" -> warmupRecords = nonNegative(flag, value);
                case "--record-size" -> recordSizeBytes = Math.toIntExact(positive(flag, value));
                case "--partitions" -> partitions = Math.toIntExact(positive(flag, value));
                case "--agents" -> agents = Math.toIntExact(positive(flag, value));
                case "--producers" -> producers = Math.toIntExact(positive(flag, value));
                case "--producer-processes" -> producerProcesses = Math.toIntExact(positive(flag, value));
                case "--producer-prop" -> producerProperty(value);
                case "--group-members" -> groupMembers = Math.toIntExact(positive(flag, value));
                case "--tail-consumers" -> tailConsumers = Math.toIntExact(positive(flag, value));
                case "--idle-seconds" -> idleSeconds = Math.toIntExact(nonNegative(flag, value));
                case "--steady-rate" -> steadyRate = nonNegative(flag, value);
                case "--steady-seconds" -> steadySeconds = Math.toIntExact(positive(flag, value));
                case "--pg-durable" -> pgDurable = bool(flag, value);
                case "--agent-arg" -> agentArguments.add(value);
                case "--floe-java-opts" -> floeJavaOptions = value;
                case "--floe-script" -> floeScript = Path.of(value);
                case "--driver-classpath" -> driverClasspath = value;
                case "--s3proxy-classpath" -> s3proxyClasspath = value;
                case "--start-timeout-s" -> startTimeoutS = positive(flag, value);
                case "--tool-timeout-s" -> toolTimeoutS = positive(flag, value);
                case "--consume-timeout-ms" -> consumeTimeoutMs = positive(flag, value);
                case "--out" -> out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + flag + "\n" + USAGE);
            }
        }

        private void producerProperty(String value) {
            int eq = value.indexOf('=');
            require(eq > 0, "--producer-prop " + value + " is not KEY=VALUE");
            producerProperties.put(
                    value.substring(0, eq).strip(), value.substring(eq + 1).strip());
        }

        ClusterOptions build(List<String> commandLine) {
            require(driverClasspath != null && !driverClasspath.isBlank(), "--driver-classpath is required");
            require(s3proxyClasspath != null && !s3proxyClasspath.isBlank(), "--s3proxy-classpath is required");
            require(
                    Files.isRegularFile(floeScript),
                    "Floe launcher " + floeScript.toAbsolutePath() + " does not exist");
            require(
                    records >= (long) producers * producerProcesses,
                    "--records " + records + " is fewer than the " + (long) producers * producerProcesses
                            + " producers");
            long warmup = warmupRecords != null ? warmupRecords : Math.min(records / 10, WARMUP_RECORDS_MAX);
            require(
                    warmup == 0 || warmup >= producers,
                    "--warmup-records " + warmup + " is fewer than the " + producers + " producers of its JVM");
            return new ClusterOptions(
                    records,
                    warmup,
                    recordSizeBytes,
                    partitions,
                    agents,
                    producers,
                    producerProcesses,
                    Collections.unmodifiableMap(new LinkedHashMap<>(producerProperties)),
                    groupMembers,
                    tailConsumer,
                    tailConsumers,
                    steadyRate,
                    steadySeconds,
                    idleSeconds,
                    pgDurable,
                    List.copyOf(agentArguments),
                    floeJavaOptions,
                    floeScript.toAbsolutePath(),
                    driverClasspath,
                    s3proxyClasspath,
                    Duration.ofSeconds(startTimeoutS),
                    Duration.ofSeconds(toolTimeoutS),
                    Duration.ofMillis(consumeTimeoutMs),
                    Optional.ofNullable(out),
                    keepDirs,
                    commandLine);
        }

        private static boolean bool(String flag, String value) {
            require(value.equals("true") || value.equals("false"), flag + " " + value + " is not true or false");
            return Boolean.parseBoolean(value);
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
