package io.floe.benchmarks.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Floe agent started through its launcher, {@code bin/floe agent}, on free loopback ports with a temp data dir.
 * Its heap is sampled over JMX during the whole run, as Kafka's is: the driver appends a local JMX port to
 * {@code FLOE_JAVA_OPTS}. bin/floe {@code exec}s the agent's JVM, so the child's pid is the JVM's, which
 * {@code jcmd} attaches to for the live heap.
 */
final class FloeAgent implements Target {

    private static final Logger LOGGER = LoggerFactory.getLogger(FloeAgent.class);
    private static final Duration STOP_GRACE = Duration.ofSeconds(60);

    private final String bootstrapServers;
    private final ChildProcess process;
    private final JmxHeapProbe heapProbe;
    private final HeapSampler heapSampler;

    private FloeAgent(String bootstrapServers, ChildProcess process, JmxHeapProbe heapProbe) {
        this.bootstrapServers = bootstrapServers;
        this.process = process;
        this.heapProbe = heapProbe;
        this.heapSampler = new HeapSampler("floe", heapProbe);
    }

    /** Starts tried before giving up when the agent's ports were taken between choosing and binding them. */
    private static final int START_ATTEMPTS = 3;

    static FloeAgent start(BenchmarkOptions options, Path dir) throws IOException, InterruptedException {
        Path log = dir.resolve("agent.log");
        for (int attempt = 1; ; attempt++) {
            long logBefore = Files.exists(log) ? Files.size(log) : 0;
            try {
                return startOnce(options, dir);
            } catch (RuntimeException e) {
                if (attempt == START_ATTEMPTS || !portTaken(log, logBefore)) {
                    throw e;
                }
                LOGGER.warn(
                        "floe could not bind a port chosen free a moment before (another process took it); "
                                + "starting again on other ports attempt={}",
                        attempt + 1);
            }
        }
    }

    /** Whether what this attempt appended to the (appended-to) log says a port was taken. */
    private static boolean portTaken(Path log, long from) {
        try {
            String all = Files.readString(log);
            return all.substring((int) Math.min(from, all.length())).contains("Address already in use");
        } catch (IOException e) {
            return false;
        }
    }

    private static FloeAgent startOnce(BenchmarkOptions options, Path dir) throws IOException, InterruptedException {
        Path dataDir = Files.createDirectories(dir.resolve("data"));
        String listen = "127.0.0.1:" + Ports.free();
        String httpListen = "127.0.0.1:" + Ports.free();
        int jmxPort = Ports.free();
        String javaOptions = String.join(
                        " ", options.floeJavaOptions(), String.join(" ", JmxHeapProbe.jvmOptions(jmxPort)))
                .strip();
        ChildProcess process = ChildProcess.start(
                "floe",
                command(options, listen, httpListen, dataDir),
                dir.resolve("agent.log"),
                Map.of("FLOE_JAVA_OPTS", javaOptions));
        FloeAgent agent = new FloeAgent(listen, process, new JmxHeapProbe(jmxPort));
        try {
            Readiness.await("floe", listen, process, options.startTimeout());
        } catch (RuntimeException | InterruptedException e) {
            agent.stop();
            throw e;
        }
        LOGGER.info("started system=floe bootstrap={} http={} pid={} dir={}", listen, httpListen, process.pid(), dir);
        return agent;
    }

    static List<String> command(BenchmarkOptions options, String listen, String httpListen, Path dataDir) {
        List<String> command = new ArrayList<>(List.of(
                options.floeScript().toString(),
                "agent",
                "--listen",
                listen,
                "--http-listen",
                httpListen,
                "--data-dir",
                dataDir.toString()));
        options.floeFlushIntervalMs()
                .ifPresent(ms -> command.addAll(List.of("--flush-interval-ms", Long.toString(ms))));
        command.addAll(options.floeExtraArgs());
        return command;
    }

    @Override
    public String label() {
        return "floe";
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
        FullGc.run("floe", process.pid(), histogramFile);
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
        int exit = process.stop(STOP_GRACE);
        LOGGER.info("stopped system=floe exit={}", exit);
    }
}
