package io.floe.cli.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code floe agent ARGS} in a child JVM on the test's class path, its output appended to a log file.
 * The agent logs as the floe executable does (the main {@code logback.xml}, INFO for Floe), not as
 * the tests do, so the log of a failed run shows membership changes and start-up lines.
 * {@link #kill()} is SIGKILL: no shutdown hook runs, as when a machine dies.
 */
public final class AgentProcess implements AutoCloseable {

    private static final long EXIT_TIMEOUT_SECONDS = 30;

    private final Process process;
    private final Path log;

    private AgentProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code floe agent} with {@code agentArguments} in a JVM with {@code jvmOptions} (a heap
     * limit at least), {@code environment} added to this JVM's environment.
     */
    public static AgentProcess start(
            List<String> jvmOptions, List<String> agentArguments, Map<String, String> environment, Path log)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-Dlogback.configurationFile=logback.xml",
                "-cp",
                System.getProperty("java.class.path"),
                "io.floe.cli.Floe",
                "agent"));
        command.addAll(agentArguments);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        return new AgentProcess(builder.start(), log);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, and waits for the process to be gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** SIGSTOP: the agent freezes with its sockets open, as in a long GC pause or a stopped VM. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT: a paused agent goes on where it stopped, unaware that time passed. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    /** SIGTERM: the agent shuts down in order (leaves the membership, gives up its leases). */
    public boolean terminate(long timeoutSeconds) throws InterruptedException {
        process.destroy();
        return process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " exited with " + kill.exitValue());
        }
    }

    public Path log() {
        return log;
    }

    /** The last {@code count} lines of the agent's output, for failure messages. */
    public String logTail(int count) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the agent log " + log, e);
        }
    }

    /** Kills the agent if it still runs: tests call this in their clean-up, whatever happened. */
    @Override
    public void close() {
        process.destroyForcibly();
    }
}
