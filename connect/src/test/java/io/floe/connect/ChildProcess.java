package io.floe.connect;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A JVM this test started, its output appended to a log file; {@link #close()} kills it and waits. */
final class ChildProcess implements AutoCloseable {

    private static final long EXIT_TIMEOUT_SECONDS = 30;

    private final String name;
    private final Process process;
    private final Path log;

    private ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Runs {@code java ARGS} with the JVM this test runs on. */
    static ChildProcess java(String name, List<String> arguments, Path log) throws IOException {
        List<String> command = new java.util.ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(arguments);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new ChildProcess(name, process, log);
    }

    /** Fails, with the end of the log, when the process has exited. */
    void assertAlive() {
        if (!process.isAlive()) {
            throw new AssertionError(name + " exited with " + process.exitValue() + "; its log:\n" + logTail(60));
        }
    }

    /** The last {@code count} lines of the process's output, for failure messages. */
    String logTail(int count) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    Path log() {
        return log;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
