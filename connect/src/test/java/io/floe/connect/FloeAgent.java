package io.floe.connect;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * {@code java -jar floe.jar agent} in a JVM of its own, as a user starts it: its defaults but for the
 * listeners (free loopback ports) and the data directory.
 */
final class FloeAgent implements AutoCloseable {

    private final ChildProcess process;
    private final String bootstrap;

    private FloeAgent(ChildProcess process, String bootstrap) {
        this.process = process;
        this.bootstrap = bootstrap;
    }

    /** Starts the agent on {@code dataDir} and waits until it answers Kafka requests. */
    static FloeAgent start(Path dataDir, Path log) throws Exception {
        Path jar = Path.of(System.getProperty("floe.jar", "../cli/target/floe.jar"));
        if (!jar.toFile().isFile()) {
            throw new IllegalStateException("no floe executable at " + jar + " (floe-cli's package phase builds it)");
        }
        String bootstrap = "127.0.0.1:" + Ports.free();
        ChildProcess process = ChildProcess.java(
                "the Floe agent",
                List.of(
                        "-Xmx512m",
                        "-jar",
                        jar.toString(),
                        "agent",
                        "--listen",
                        bootstrap,
                        "--http-listen",
                        "127.0.0.1:0",
                        "--data-dir",
                        dataDir.toString()),
                log);
        FloeAgent agent = new FloeAgent(process, bootstrap);
        try (Admin admin = agent.admin()) {
            // The admin client retries connecting until its timeout; no fixed sleep.
            admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            agent.close();
            throw new IllegalStateException("the agent did not answer; its log:\n" + process.logTail(40), e);
        }
        return agent;
    }

    String bootstrap() {
        return bootstrap;
    }

    Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000));
    }

    void assertAlive() {
        process.assertAlive();
    }

    String logTail(int lines) {
        return process.logTail(lines);
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
