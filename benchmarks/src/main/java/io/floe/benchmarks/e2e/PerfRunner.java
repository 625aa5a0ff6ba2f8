package io.floe.benchmarks.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the measuring tools as child JVMs, one at a time, and parses their output: Kafka's
 * {@code ProducerPerformance} and {@code ConsumerPerformance} (from kafka-tools, on Kafka's classpath), and this
 * module's {@link AssignConsumer} (on the driver's classpath). Child JVMs keep the tools' logging and GC apart
 * from the driver's and match how Kafka's own scripts run them (512 MiB heap).
 */
final class PerfRunner {

    private static final Logger LOGGER = LoggerFactory.getLogger(PerfRunner.class);
    static final String PRODUCER_MAIN = "org.apache.kafka.tools.ProducerPerformance";
    /** The saturation run's transactional id when it runs transactions. */
    static final String TRANSACTIONAL_ID = "floe-bench-producer";

    static final String CONSUMER_MAIN = "org.apache.kafka.tools.ConsumerPerformance";
    static final String PRODUCER_PROPERTIES = "acks=all linger.ms=5 batch.size=131072";
    static final List<String> TOOL_JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseG1GC", "-Djava.awt.headless=true");
    private static final String BOOTSTRAP = "<bootstrap>";

    private final BenchmarkOptions options;
    private final Path toolLog4j;

    PerfRunner(BenchmarkOptions options, Path workDir) throws IOException {
        this.options = options;
        this.toolLog4j = Files.writeString(workDir.resolve("tools-log4j2.properties"), """
                rootLogger.level=WARN
                rootLogger.appenderRef.console.ref=console
                appender.console.type=Console
                appender.console.name=console
                appender.console.layout.type=PatternLayout
                appender.console.layout.pattern=[%d] %p %m (%c)%n
                """);
    }

    /** The saturation run: {@code --records} records, unthrottled. */
    List<String> producerArgs(String bootstrapServers, String topic) {
        List<String> args = producerArgs(bootstrapServers, topic, options.records(), -1, options.warmupRecords());
        if (options.transactionDurationMs() > 0) {
            args.addAll(List.of(
                    "--transactional-id",
                    TRANSACTIONAL_ID,
                    "--transaction-duration-ms",
                    Long.toString(options.transactionDurationMs())));
        }
        return args;
    }

    /**
     * The steady-rate run: {@code --latency-records} records throttled to {@code --latency-rate} records/s, the
     * first {@code --latency-warmup-records} left out of the summary.
     */
    List<String> steadyProducerArgs(String bootstrapServers, String topic) {
        return producerArgs(
                bootstrapServers,
                topic,
                options.latencyRecords(),
                options.latencyRate(),
                options.latencyWarmupRecords());
    }

    private List<String> producerArgs(
            String bootstrapServers, String topic, long records, long throughput, long warmupRecords) {
        List<String> args = new ArrayList<>(List.of(
                "--bootstrap-server",
                bootstrapServers,
                "--topic",
                topic,
                "--num-records",
                Long.toString(records),
                "--record-size",
                Integer.toString(options.recordSizeBytes()),
                "--throughput",
                Long.toString(throughput)));
        if (warmupRecords > 0) {
            args.addAll(List.of("--warmup-records", Long.toString(warmupRecords)));
        }
        args.add("--command-property");
        args.addAll(List.of(PRODUCER_PROPERTIES.split(" ")));
        return args;
    }

    List<String> consumerPerfArgs(String bootstrapServers, String topic) {
        return List.of(
                "--bootstrap-server",
                bootstrapServers,
                "--topic",
                topic,
                "--num-records",
                Long.toString(options.records()),
                "--timeout",
                Long.toString(options.consumeIdleTimeout().toMillis()));
    }

    List<String> assignConsumerArgs(String bootstrapServers, String topic) {
        return List.of(
                bootstrapServers,
                topic,
                Long.toString(options.records()),
                Long.toString(options.consumeIdleTimeout().toMillis()));
    }

    /** The tools' command lines in the order they run, classpath left out, for the report. */
    List<String> commandLines(String topic, String steadyTopic) {
        List<String> lines = new ArrayList<>();
        lines.add(PRODUCER_MAIN + " " + String.join(" ", producerArgs(BOOTSTRAP, topic)));
        if (options.consumerMode().runsPerf()) {
            lines.add(CONSUMER_MAIN + " " + String.join(" ", consumerPerfArgs(BOOTSTRAP, topic)));
        }
        if (options.consumerMode().runsAssign()) {
            lines.add(AssignConsumer.class.getName() + " " + String.join(" ", assignConsumerArgs(BOOTSTRAP, topic)));
        }
        if (options.latencyPhase()) {
            lines.add(PRODUCER_MAIN + " " + String.join(" ", steadyProducerArgs(BOOTSTRAP, steadyTopic)));
        }
        return lines;
    }

    Outcome<ProducerSummary> produce(String bootstrapServers, String topic, Path logFile) {
        return run(
                "ProducerPerformance",
                options.kafkaClasspath(),
                PRODUCER_MAIN,
                producerArgs(bootstrapServers, topic),
                logFile,
                ProducerSummary::parse);
    }

    Outcome<ProducerSummary> produceAtSteadyRate(String bootstrapServers, String topic, Path logFile) {
        return run(
                "ProducerPerformance",
                options.kafkaClasspath(),
                PRODUCER_MAIN,
                steadyProducerArgs(bootstrapServers, topic),
                logFile,
                ProducerSummary::parse);
    }

    Outcome<ConsumerSummary> consumeWithGroup(String bootstrapServers, String topic, Path logFile) {
        return complete(run(
                "ConsumerPerformance",
                options.kafkaClasspath(),
                CONSUMER_MAIN,
                consumerPerfArgs(bootstrapServers, topic),
                logFile,
                ConsumerSummary::parseConsumerPerformance));
    }

    Outcome<ConsumerSummary> consumeWithAssign(String bootstrapServers, String topic, Path logFile) {
        return complete(run(
                "AssignConsumer",
                options.driverClasspath(),
                AssignConsumer.class.getName(),
                assignConsumerArgs(bootstrapServers, topic),
                logFile,
                ConsumerSummary::parseAssignConsumer));
    }

    /** A consumer that stopped early (idle timeout) measured something other than the workload: a failure. */
    private Outcome<ConsumerSummary> complete(Outcome<ConsumerSummary> outcome) {
        Optional<ConsumerSummary> summary = outcome.measured();
        if (summary.isPresent() && summary.get().records() < options.records()) {
            return Outcome.failed("read " + summary.get().records() + " of " + options.records()
                    + " records before the " + options.consumeIdleTimeout().toMillis() + " ms idle timeout");
        }
        return outcome;
    }

    private <T> Outcome<T> run(
            String tool,
            String classpath,
            String mainClass,
            List<String> args,
            Path logFile,
            Function<List<String>, Optional<T>> parser) {
        List<String> jvm = new ArrayList<>(TOOL_JVM_OPTIONS);
        jvm.add("-Dlog4j2.configurationFile=" + toolLog4j);
        jvm.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        LOGGER.info("running tool={} args={} log={}", tool, String.join(" ", args), logFile);
        ChildProcess process =
                ChildProcess.start(tool, ChildProcess.javaCommand(classpath, jvm, mainClass, args), logFile, Map.of());
        try {
            int exit = process.awaitExit(options.toolTimeout());
            Optional<T> parsed = parse(parser, process.logLines());
            if (parsed.isPresent()) {
                return Outcome.measured(parsed.get());
            }
            return Outcome.failed(tool + " exited " + exit + " without a summary; last line: " + lastLine(process));
        } catch (IllegalStateException e) {
            return Outcome.failed(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.failed(tool + " interrupted");
        }
    }

    /** A summary that does not parse is reported like a missing one, with the tool's last line. */
    private static <T> Optional<T> parse(Function<List<String>, Optional<T>> parser, List<String> lines) {
        try {
            return parser.apply(lines);
        } catch (RuntimeException e) {
            LOGGER.warn("cannot parse tool output error={}", e.toString());
            return Optional.empty();
        }
    }

    private static String lastLine(ChildProcess process) {
        List<String> lines =
                process.logLines().stream().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1).strip();
    }
}
