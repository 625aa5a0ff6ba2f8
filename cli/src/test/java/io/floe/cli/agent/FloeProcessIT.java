package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The packaged {@code floe.jar} as a process: it starts, and SIGTERM shuts it down in order with exit code 0. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FloeProcessIT {

    private static final Path JAR = Path.of("target", "floe.jar");

    @TempDir
    Path dataDir;

    @TempDir
    Path tmpDir;

    @Test
    void sigtermStopsTheAgentInOrderAndExitsWithZero() throws Exception {
        assertThat(JAR).as("built by the package phase").exists();
        Process process = new ProcessBuilder(
                        javaCommand(),
                        "-Djava.io.tmpdir=" + tmpDir,
                        "-jar",
                        JAR.toString(),
                        "agent",
                        "--listen",
                        "127.0.0.1:" + freePort(),
                        "--http-listen",
                        "127.0.0.1:0",
                        "--data-dir",
                        dataDir.toString())
                .redirectErrorStream(true)
                .start();
        List<String> lines = new CopyOnWriteArrayList<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread reader = new Thread(() -> collect(process, lines, started), "floe-process-output");
        reader.start();
        try {
            assertThat(started.await(60, TimeUnit.SECONDS))
                    .as("started; output: %s", lines)
                    .isTrue();

            process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our end of its output

            assertThat(process.waitFor(60, TimeUnit.SECONDS))
                    .as("exited; output: %s", lines)
                    .isTrue();
            reader.join();
            assertThat(process.exitValue()).as("exit code; output: %s", lines).isZero();
            String output = String.join("\n", lines);
            assertThat(output)
                    .containsSubsequence(
                            "Shutdown requested",
                            "Stopping Kafka listener",
                            "Stopping agent",
                            "Stopping object store",
                            "Stopping metadata store",
                            "Stopping HTTP endpoint",
                            "Floe agent stopped clean=true");
            assertThat(Files.exists(dataDir.resolve("metadata.db"))).isTrue();
            try (var left = Files.list(tmpDir)) {
                assertThat(left.map(path -> path.getFileName().toString()))
                        .as("native libraries extracted to java.io.tmpdir are deleted")
                        .noneMatch(n -> n.contains("sqlite"));
            }
        } finally {
            process.destroyForcibly();
        }
    }

    /**
     * A SIGTERM while the agent is still starting (on its first migration line, long before it says it
     * started) waits for the start to finish and then stops it in order: no exit by the signal (143).
     */
    @Test
    void sigtermDuringTheStartStopsTheAgentOnceItHasStarted() throws Exception {
        Process process = new ProcessBuilder(
                        javaCommand(),
                        "-Djava.io.tmpdir=" + tmpDir,
                        "-jar",
                        JAR.toString(),
                        "agent",
                        "--listen",
                        "127.0.0.1:" + freePort(),
                        "--http-listen",
                        "127.0.0.1:0",
                        "--data-dir",
                        dataDir.toString())
                .redirectErrorStream(true)
                .start();
        List<String> lines = new CopyOnWriteArrayList<>();
        CountDownLatch starting = new CountDownLatch(1);
        Thread reader = new Thread(
                () -> collect(process, lines, starting, "applied metadata migration"), "floe-process-output");
        reader.start();
        try {
            assertThat(starting.await(60, TimeUnit.SECONDS))
                    .as("starting; output: %s", lines)
                    .isTrue();

            process.toHandle().destroy(); // SIGTERM during the start

            assertThat(process.waitFor(60, TimeUnit.SECONDS))
                    .as("exited; output: %s", lines)
                    .isTrue();
            reader.join();
            assertThat(process.exitValue()).as("exit code; output: %s", lines).isZero();
            assertThat(String.join("\n", lines))
                    .containsSubsequence("Floe agent started", "Shutdown requested", "Floe agent stopped clean=true");
        } finally {
            process.destroyForcibly();
        }
    }

    private static void collect(Process process, List<String> lines, CountDownLatch started) {
        collect(process, lines, started, "Floe agent started");
    }

    private static void collect(Process process, List<String> lines, CountDownLatch seen, String trigger) {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lines.add(line);
                if (line.contains(trigger)) {
                    seen.countDown();
                }
            }
        } catch (IOException e) {
            lines.add("(reading the output failed: " + e + ")");
        }
    }

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
