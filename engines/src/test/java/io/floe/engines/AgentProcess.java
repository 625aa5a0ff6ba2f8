package io.floe.engines;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The agent as users start it, {@code java -jar floe.jar agent ...}, in a child process on fixed ports
 * and one data directory, so that it can be killed and started again where it was. Its output goes to
 * one log file across restarts.
 */
final class AgentProcess {

    /** What {@link Process#exitValue()} reports for a process killed by SIGKILL (128 + 9). */
    static final int KILLED = 137;
    /** How long a table's lease lasts: a restarted agent takes the tables of its killed predecessor after it. */
    private static final String TABLE_LEASE_MS = "5000";

    private final Path jar;
    private final Path dataDir;
    private final Path log;
    private final int kafkaPort;
    private final int httpPort;
    private Process process;

    private AgentProcess(Path jar, Path dataDir, Path log, int kafkaPort, int httpPort) {
        this.jar = jar;
        this.dataDir = dataDir;
        this.log = log;
        this.kafkaPort = kafkaPort;
        this.httpPort = httpPort;
    }

    /** Starts an agent on free loopback ports over {@code dataDir}, logging to {@code log}. */
    static AgentProcess start(Path jar, Path dataDir, Path log) throws IOException {
        assertThat(jar).as("the floe executable (built by floe-cli's package phase)").isRegularFile();
        AgentProcess agent = new AgentProcess(jar, dataDir, log, freePort(), freePort());
        agent.start();
        return agent;
    }

    /** Starts the agent (again, after {@link #kill}) on the same ports and data directory. */
    void start() throws IOException {
        assertThat(process == null || !process.isAlive()).as("agent already running").isTrue();
        process = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-Xmx512m", "-jar",
                jar.toString(), "agent", "--listen", bootstrap(), "--http-listen", "127.0.0.1:" + httpPort,
                "--data-dir", dataDir.toString(), "--flush-interval-ms", "10", "--tableflow-lease-ms", TABLE_LEASE_MS)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** Kills the agent with SIGKILL, as a crash would, and returns its exit value once it is gone. */
    int kill() throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the killed agent exited").isTrue();
        return process.exitValue();
    }

    void stop() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Fails, with the end of the agent's log, when the agent is not running. */
    void assertAlive() {
        assertThat(process.isAlive()).as("agent running; its log: %s", logTail()).isTrue();
    }

    String bootstrap() {
        return "127.0.0.1:" + kafkaPort;
    }

    String catalogUri() {
        return "http://127.0.0.1:" + httpPort + "/iceberg";
    }

    Path dataDir() {
        return dataDir;
    }

    /** Where Tableflow writes a table's files before it uploads them: a file appears there as a round begins writing. */
    Path spoolDirectory() {
        return dataDir.resolve("tableflow-spool");
    }

    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
