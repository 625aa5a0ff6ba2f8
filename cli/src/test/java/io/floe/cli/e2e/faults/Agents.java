package io.floe.cli.e2e.faults;

import io.floe.cli.agent.InProcessS3;
import io.floe.cli.e2e.AgentProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The agents of a fault run, each a child JVM ({@link AgentProcess}) on PostgreSQL and S3 with a fixed
 * node id and ports: a killed agent comes back as the same broker, as a restarted machine would. An
 * agent that exits without being killed is a finding: {@link #reviveCrashed()} records it with its
 * log's tail and starts it again so the run goes on. Logs are appended to {@code <logs>/agent-N.log}
 * across restarts.
 */
public final class Agents implements AutoCloseable {

    /** One agent: its node id and ports, and its current process (null while it is down). */
    private static final class Node {
        final int nodeId;
        final int kafkaPort = freePort();
        final int httpPort = freePort();
        AgentProcess process;
        int starts;

        Node(int nodeId) {
            this.nodeId = nodeId;
        }

        String bootstrap() {
            return "127.0.0.1:" + kafkaPort;
        }
    }

    private static final int LOG_TAIL_LINES = 60;
    private static final int START_ATTEMPTS = 3;
    private static final long POLL_INTERVAL_MS = 100;

    private final Path dir;
    private final Path logs;
    private final List<String> jvmOptions;
    private final List<String> sharedArguments;
    private final Duration startTimeout;
    private final List<Node> nodes = new ArrayList<>();
    private final List<String> crashes = new ArrayList<>();
    private final List<String> failedStarts = new ArrayList<>();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * {@code count} agents (not started) on the metadata store at {@code metadataUrl} and the bucket
     * {@code bucket} behind {@code s3Endpoint}, with {@code extraArguments} added to each.
     */
    public Agents(
            int count,
            Path dir,
            Path logs,
            String metadataUrl,
            URI s3Endpoint,
            String bucket,
            List<String> jvmOptions,
            List<String> extraArguments,
            Duration startTimeout) {
        this.dir = dir;
        this.logs = logs;
        this.jvmOptions = jvmOptions;
        this.startTimeout = startTimeout;
        List<String> arguments = new ArrayList<>(List.of(
                "--metadata",
                metadataUrl,
                "--objects",
                "s3://" + bucket + "/fault-run",
                "--s3-endpoint",
                s3Endpoint.toString(),
                "--s3-path-style",
                "true",
                "--s3-access-key-id",
                InProcessS3.ACCESS_KEY));
        arguments.addAll(extraArguments);
        this.sharedArguments = List.copyOf(arguments);
        for (int nodeId = 1; nodeId <= count; nodeId++) {
            nodes.add(new Node(nodeId));
        }
    }

    /** Starts every agent, all at once, and waits until each answers its health check. */
    public void startAll() throws Exception {
        Files.createDirectories(logs);
        for (Node node : nodes) {
            Files.deleteIfExists(log(node));
            launch(node);
        }
        for (Node node : nodes) {
            awaitHealthy(node);
        }
    }

    public List<Integer> nodeIds() {
        return nodes.stream().map(node -> node.nodeId).toList();
    }

    /** Every agent's Kafka address, comma-separated: clients bootstrap from any that answers. */
    public String bootstrap() {
        return nodes.stream().map(Node::bootstrap).collect(Collectors.joining(","));
    }

    public String bootstrap(int nodeId) {
        return node(nodeId).bootstrap();
    }

    /** SIGKILL: no shutdown hook runs, buffered produce requests die unanswered. */
    public synchronized void kill(int nodeId) throws InterruptedException {
        Node node = node(nodeId);
        if (node.process != null) {
            node.process.kill();
            node.process = null;
        }
    }

    /**
     * SIGSTOP: the agent freezes with its sockets open and its leases unrenewed, as in a long GC pause;
     * {@link #resume} lets it go on unaware that time passed. A no-op for an agent that is down.
     */
    public synchronized void pause(int nodeId) throws IOException, InterruptedException {
        Node node = node(nodeId);
        if (node.process != null) {
            node.process.pause();
        }
    }

    /** SIGCONT of a {@link #pause}d agent (harmless for one that runs). */
    public synchronized void resume(int nodeId) throws IOException, InterruptedException {
        Node node = node(nodeId);
        if (node.process != null) {
            node.process.resume();
        }
    }

    /** Whether the agent's process runs (paused counts as running). */
    public synchronized boolean isUp(int nodeId) {
        Node node = node(nodeId);
        return node.process != null && node.process.isAlive();
    }

    /**
     * Starts a stopped agent on its node id and ports and waits until it is healthy. A start that
     * fails (the process exits first) is recorded and tried again, up to {@value #START_ATTEMPTS} times.
     */
    public void start(int nodeId) throws Exception {
        Node node = node(nodeId);
        synchronized (this) {
            if (node.process != null) {
                return;
            }
            launch(node);
        }
        awaitHealthy(node);
    }

    /** Waits until a running (or starting) agent answers its health check; a no-op for one that is down. */
    public void awaitHealthy(int nodeId) throws Exception {
        Node node = node(nodeId);
        synchronized (this) {
            if (node.process == null) {
                return;
            }
        }
        awaitHealthy(node);
    }

    /**
     * Records every agent that exited although nobody killed it, and starts it again. Returns how many
     * it found.
     */
    public int reviveCrashed() throws Exception {
        List<Node> crashed = new ArrayList<>();
        synchronized (this) {
            for (Node node : nodes) {
                if (node.process != null && !node.process.isAlive()) {
                    crashes.add("agent " + node.nodeId + " exited unasked; its log ends with:\n"
                            + node.process.logTail(LOG_TAIL_LINES));
                    node.process = null;
                    crashed.add(node);
                }
            }
        }
        for (Node node : crashed) {
            start(node.nodeId);
        }
        return crashed.size();
    }

    /** Agents that exited on their own during the run, each with its log's tail. */
    public synchronized List<String> crashes() {
        return List.copyOf(crashes);
    }

    /** Starts that failed (the agent exited before it was healthy) and were tried again. */
    public synchronized List<String> failedStarts() {
        return List.copyOf(failedStarts);
    }

    /** How often each agent was started (first start included). */
    public synchronized Map<Integer, Integer> starts() {
        return nodes.stream().collect(Collectors.toMap(node -> node.nodeId, node -> node.starts));
    }

    @Override
    public synchronized void close() {
        for (Node node : nodes) {
            if (node.process != null) {
                node.process.close();
            }
        }
    }

    private void launch(Node node) throws IOException {
        List<String> arguments = new ArrayList<>(List.of(
                "--node-id",
                Integer.toString(node.nodeId),
                "--listen",
                "127.0.0.1:" + node.kafkaPort,
                "--http-listen",
                "127.0.0.1:" + node.httpPort,
                "--data-dir",
                dir.resolve("agent-" + node.nodeId).toString()));
        arguments.addAll(sharedArguments);
        // The secret from the environment, as the README advises: a flag shows in the process list.
        node.process = AgentProcess.start(
                jvmOptions, arguments, Map.of("FLOE_S3_SECRET_ACCESS_KEY", InProcessS3.SECRET_KEY), log(node));
        node.starts++;
    }

    private void awaitHealthy(Node node) throws Exception {
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort + "/health"))
                .timeout(Duration.ofSeconds(2))
                .build();
        long deadline = System.nanoTime() + startTimeout.toNanos();
        for (int attempt = 1; ; ) {
            AgentProcess process;
            synchronized (this) {
                process = node.process;
            }
            if (process == null) {
                throw new IllegalStateException("agent " + node.nodeId + " was killed while starting");
            }
            if (!process.isAlive()) {
                String failure = "agent " + node.nodeId + " exited while starting (attempt " + attempt + "); its log"
                        + " ends with:\n" + process.logTail(LOG_TAIL_LINES);
                synchronized (this) {
                    failedStarts.add(failure);
                    if (attempt >= START_ATTEMPTS) {
                        throw new AssertionError(failure);
                    }
                    attempt++;
                    launch(node);
                }
                continue;
            }
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("agent " + node.nodeId + " not healthy after " + startTimeout
                        + "; its log ends with:\n" + process.logTail(LOG_TAIL_LINES));
            }
            TimeUnit.MILLISECONDS.sleep(POLL_INTERVAL_MS); // a poll interval: the health check decides
        }
    }

    private Path log(Node node) {
        return logs.resolve("agent-" + node.nodeId + ".log");
    }

    private Node node(int nodeId) {
        return nodes.stream()
                .filter(node -> node.nodeId == nodeId)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no agent " + nodeId + " among " + nodeIds()));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
