package io.floe.benchmarks.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Apache Kafka broker in KRaft combined mode (broker and controller in one JVM, 1 GiB heap), started
 * from the kafka_2.13 jar: {@code StorageTool format --standalone}, then {@code kafka.Kafka server.properties}.
 * JVM options follow {@code kafka-server-start.sh}'s defaults. A local JMX port lets the driver sample its heap the
 * way it samples Floe's.
 */
final class KafkaBroker implements Target {

    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaBroker.class);
    private static final Duration FORMAT_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_GRACE = Duration.ofSeconds(60);
    static final List<String> JVM_OPTIONS = List.of(
            "-Xmx1g",
            "-Xms1g",
            "-server",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:+ExplicitGCInvokesConcurrent",
            "-XX:MaxInlineLevel=15",
            "-Djava.awt.headless=true");

    private final String label;
    private final String bootstrapServers;
    private final ChildProcess process;
    private final JmxHeapProbe heapProbe;
    private final HeapSampler heapSampler;

    private KafkaBroker(String label, String bootstrapServers, ChildProcess process, JmxHeapProbe heapProbe) {
        this.label = label;
        this.bootstrapServers = bootstrapServers;
        this.process = process;
        this.heapProbe = heapProbe;
        this.heapSampler = new HeapSampler(label, heapProbe);
    }

    static KafkaBroker start(String label, BenchmarkOptions options, Path dir)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        int clientPort = Ports.free();
        int controllerPort = Ports.free();
        int jmxPort = Ports.free();
        Path serverProperties = Files.writeString(
                dir.resolve("server.properties"),
                serverProperties(clientPort, controllerPort, dir.resolve("log-dirs"), options.partitions()));
        Path log4j = Files.writeString(dir.resolve("log4j2.properties"), log4jProperties(dir.resolve("server.log")));
        format(options.kafkaClasspath(), serverProperties, log4j, dir);

        List<String> jvm = new java.util.ArrayList<>(JVM_OPTIONS);
        jvm.add("-Dlog4j2.configurationFile=" + log4j);
        jvm.addAll(JmxHeapProbe.jvmOptions(jmxPort));
        ChildProcess process = ChildProcess.start(
                label,
                ChildProcess.javaCommand(
                        options.kafkaClasspath(), jvm, "kafka.Kafka", List.of(serverProperties.toString())),
                dir.resolve("stdout.log"),
                Map.of());
        String bootstrap = "127.0.0.1:" + clientPort;
        KafkaBroker broker = new KafkaBroker(label, bootstrap, process, new JmxHeapProbe(jmxPort));
        try {
            Readiness.await(label, bootstrap, process, options.startTimeout());
        } catch (RuntimeException | InterruptedException e) {
            broker.stop();
            throw e;
        }
        LOGGER.info("started system={} bootstrap={} pid={} dir={}", label, bootstrap, process.pid(), dir);
        return broker;
    }

    private static void format(String classpath, Path serverProperties, Path log4j, Path dir)
            throws InterruptedException {
        ChildProcess format = ChildProcess.start(
                "kafka-storage-format",
                ChildProcess.javaCommand(
                        classpath,
                        List.of("-Xmx256m", "-Dlog4j2.configurationFile=" + log4j),
                        "kafka.tools.StorageTool",
                        List.of(
                                "format",
                                "-t",
                                Uuid.randomUuid().toString(),
                                "-c",
                                serverProperties.toString(),
                                "--standalone")),
                dir.resolve("format.log"),
                Map.of());
        int exit = format.awaitExit(FORMAT_TIMEOUT);
        if (exit != 0) {
            throw new IllegalStateException(
                    "kafka.tools.StorageTool format exited " + exit + ":\n" + format.logTail(20));
        }
    }

    /**
     * For {@code benchmarks/profile-consume.sh}, which starts a broker as this driver does: {@code server-properties
     * CLIENT_PORT CONTROLLER_PORT LOG_DIRS PARTITIONS} prints its server.properties, {@code jvm-options} its JVM options,
     * {@code tool-jvm-options} those the driver gives the producer and consumer tools.
     */
    public static void main(String[] args) {
        if (args.length == 5 && args[0].equals("server-properties")) {
            System.out.print(serverProperties(
                    Integer.parseInt(args[1]), Integer.parseInt(args[2]), Path.of(args[3]), Integer.parseInt(args[4])));
        } else if (args.length == 1 && args[0].equals("jvm-options")) {
            System.out.println(String.join(" ", JVM_OPTIONS));
        } else if (args.length == 1 && args[0].equals("tool-jvm-options")) {
            System.out.println(String.join(" ", PerfRunner.TOOL_JVM_OPTIONS));
        } else {
            System.err.println("Usage: KafkaBroker server-properties CLIENT_PORT CONTROLLER_PORT LOG_DIRS PARTITIONS"
                    + " | jvm-options | tool-jvm-options");
            System.exit(2);
        }
    }

    static String serverProperties(int clientPort, int controllerPort, Path logDirs, int partitions) {
        return """
                process.roles=broker,controller
                node.id=1
                controller.quorum.bootstrap.servers=127.0.0.1:%2$d
                listeners=PLAINTEXT://127.0.0.1:%1$d,CONTROLLER://127.0.0.1:%2$d
                advertised.listeners=PLAINTEXT://127.0.0.1:%1$d,CONTROLLER://127.0.0.1:%2$d
                controller.listener.names=CONTROLLER
                inter.broker.listener.name=PLAINTEXT
                listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
                log.dirs=%3$s
                num.partitions=%4$d
                offsets.topic.replication.factor=1
                transaction.state.log.replication.factor=1
                transaction.state.log.min.isr=1
                share.coordinator.state.topic.replication.factor=1
                share.coordinator.state.topic.min.isr=1
                min.insync.replicas=1
                group.initial.rebalance.delay.ms=0
                """.formatted(clientPort, controllerPort, logDirs, partitions);
    }

    private static String log4jProperties(Path logFile) {
        return """
                rootLogger.level=INFO
                rootLogger.appenderRef.file.ref=file
                appender.file.type=File
                appender.file.name=file
                appender.file.fileName=%s
                appender.file.layout.type=PatternLayout
                appender.file.layout.pattern=[%%d] %%p %%m (%%c)%%n
                """.formatted(logFile);
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public OptionalLong peakHeapBytes() {
        return heapSampler.peakBytes();
    }

    @Override
    public long liveHeapBytes(Path histogramFile) throws Exception {
        FullGc.run(label, process.pid(), histogramFile);
        return heapProbe.heapUsedBytes();
    }

    @Override
    public long peakRssBytes() {
        return process.peakRssBytes();
    }

    @Override
    public String logTail(int lines) {
        return process.logTail(lines);
    }

    @Override
    public void stop() throws InterruptedException {
        heapSampler.close();
        heapProbe.close();
        int exit = process.stop(STOP_GRACE);
        LOGGER.info("stopped system={} exit={}", label, exit);
    }
}
