package io.floe.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A child process (a JVM, or a launcher script and the JVM it starts) whose stdout and stderr go to one log file.
 * Stopping sends SIGTERM to the process and its descendants, so a launcher script that does not {@code exec}
 * its JVM still stops cleanly, and kills them only after a grace period. Public for the cluster benchmark
 * ({@code io.floe.benchmarks.cluster}), which runs its stores, agents and tools the same way.
 */
public final class ChildProcess {

    private static final Duration KILL_WAIT = Duration.ofSeconds(10);
    /** Children still running, so that a driver stopped by Ctrl-C leaves none behind (see {@link #killAll()}). */
    private static final Set<ChildProcess> LIVE = ConcurrentHashMap.newKeySet();

    private final String name;
    private final Process process;
    private final Path logFile;

    private ChildProcess(String name, Process process, Path logFile) {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
    }

    public static ChildProcess start(String name, List<String> command, Path logFile, Map<String, String> environment) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().putAll(environment);
        try {
            ChildProcess child = new ChildProcess(name, builder.start(), logFile);
            LIVE.add(child);
            child.process.onExit().thenRun(() -> LIVE.remove(child));
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + String.join(" ", command), e);
        }
    }

    /** The command line of a child JVM running {@code mainClass} from {@code classpath}. */
    public static List<String> javaCommand(
            String classpath, List<String> jvmOptions, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        // The perf tools format numbers with the default locale; the parsers expect '.' decimals.
        command.add("-Duser.language=en");
        command.add("-Duser.country=US");
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    public String name() {
        return name;
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** Waits for the process to exit by itself; kills it and throws when it outlives {@code timeout}. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return process.exitValue();
        }
        kill();
        throw new IllegalStateException(
                name + " still running after " + timeout.toSeconds() + " s; killed it. Log: " + logFile);
    }

    /** SIGTERM to the process tree, then waits {@code grace}; kills whatever is left. Returns the exit code. */
    public int stop(Duration grace) throws InterruptedException {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroy();
        descendants.forEach(ProcessHandle::destroy);
        boolean exited = process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
        boolean descendantsExited = descendants.stream().allMatch(h -> awaitHandle(h, grace));
        if (!exited || !descendantsExited) {
            kill();
            return -1;
        }
        return process.exitValue();
    }

    /** Kills every child still running; for the driver's shutdown hook. */
    public static void killAll() {
        for (ChildProcess child : List.copyOf(LIVE)) {
            try {
                child.kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void kill() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static boolean awaitHandle(ProcessHandle handle, Duration timeout) {
        try {
            handle.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            return !handle.isAlive();
        }
    }

    /**
     * Peak resident set size (VmHWM from /proc) of the process and its descendants, the largest one; 0 where /proc
     * is not readable. Read it before stopping the process.
     */
    public long peakRssBytes() {
        return Stream.concat(Stream.of(process.toHandle()), process.descendants())
                .mapToLong(h -> vmHwmBytes(h.pid()))
                .max()
                .orElse(0);
    }

    private static long vmHwmBytes(long pid) {
        try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "status"))) {
            return lines.filter(l -> l.startsWith("VmHWM:"))
                    .map(l -> l.replaceAll("[^0-9]", ""))
                    .mapToLong(kib -> Long.parseLong(kib) * 1024)
                    .findFirst()
                    .orElse(0);
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /** All lines of the log, read as UTF-8 with malformed bytes replaced. */
    public List<String> logLines() {
        try {
            return new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8)
                    .lines()
                    .toList();
        } catch (IOException e) {
            return List.of("(cannot read " + logFile + ": " + e + ")");
        }
    }

    /** The last {@code count} lines of the log, for error messages. */
    public String logTail(int count) {
        List<String> lines = logLines();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    }
}
