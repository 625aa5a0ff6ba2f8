package io.floe.benchmarks.cluster;

import io.floe.benchmarks.e2e.ChildProcess;
import io.floe.benchmarks.e2e.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One Floe agent of the cluster: {@code bin/floe agent} with its own node id, data dir and free loopback ports for
 * Kafka and HTTP, on the shared stores. Its {@code /metrics} are scraped before and after each phase.
 */
final class AgentNode {

    private static final Duration STOP_GRACE = Duration.ofSeconds(60);
    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(5);

    private final int nodeId;
    private final int kafkaPort;
    private final int httpPort;
    private final ChildProcess process;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

    private AgentNode(int nodeId, int kafkaPort, int httpPort, ChildProcess process) {
        this.nodeId = nodeId;
        this.kafkaPort = kafkaPort;
        this.httpPort = httpPort;
        this.process = process;
    }

    /** Launches the agent and returns at once; {@link #awaitHealthy} waits for it. */
    static AgentNode launch(
            int nodeId,
            Path floeScript,
            Path dir,
            List<String> storeArguments,
            List<String> extraArguments,
            String javaOptions)
            throws IOException {
        Path dataDir = Files.createDirectories(dir.resolve("data"));
        int kafkaPort = Ports.free();
        int httpPort = Ports.free();
        List<String> command = new ArrayList<>(List.of(
                floeScript.toString(),
                "agent",
                "--node-id",
                Integer.toString(nodeId),
                "--listen",
                "127.0.0.1:" + kafkaPort,
                "--http-listen",
                "127.0.0.1:" + httpPort,
                "--data-dir",
                dataDir.toString()));
        command.addAll(storeArguments);
        command.addAll(extraArguments);
        // The secret from the environment, as the README advises: a flag shows in the process list.
        ChildProcess process = ChildProcess.start(
                "agent-" + nodeId,
                command,
                dir.resolve("agent.log"),
                Map.of("FLOE_S3_SECRET_ACCESS_KEY", S3Server.SECRET_KEY, "FLOE_JAVA_OPTS", javaOptions));
        return new AgentNode(nodeId, kafkaPort, httpPort, process);
    }

    int nodeId() {
        return nodeId;
    }

    String bootstrap() {
        return "127.0.0.1:" + kafkaPort;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String logTail(int lines) {
        return process.logTail(lines);
    }

    long peakRssBytes() {
        return process.peakRssBytes();
    }

    /** Waits until {@code /health} answers 200; throws when the agent exits or the timeout passes. */
    void awaitHealthy(Duration timeout) throws InterruptedException {
        URI health = URI.create("http://127.0.0.1:" + httpPort + "/health");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "agent " + nodeId + " exited while starting. Log tail:\n" + process.logTail(40));
            }
            try {
                if (http.send(
                                        HttpRequest.newBuilder(health)
                                                .timeout(HTTP_TIMEOUT)
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("agent " + nodeId + " not healthy after " + timeout.toSeconds()
                + " s. Log tail:\n" + process.logTail(40));
    }

    Exposition scrape() throws IOException, InterruptedException {
        URI metrics = URI.create("http://127.0.0.1:" + httpPort + "/metrics");
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(metrics).timeout(HTTP_TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + metrics + " answered " + response.statusCode());
        }
        return Exposition.parse(response.body());
    }

    /** SIGTERM (the agent flushes, commits and exits 0), killed after a minute. Returns the exit code. */
    int stop() throws InterruptedException {
        return process.isAlive() ? process.stop(STOP_GRACE) : -1;
    }
}
