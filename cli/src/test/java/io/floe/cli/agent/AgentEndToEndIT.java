package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The whole agent in-process (embedded stores in a temp directory, Kafka on a free loopback port),
 * driven by {@code floe topics} through picocli, then stopped and started again on the same data.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AgentEndToEndIT {

    @TempDir
    Path dataDir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void managesTopicsAndStopsCleanly() throws Exception {
        int port = freePort();
        AgentSettings settings = settings(port);

        AgentRuntime runtime = AgentRuntime.start(settings, Clock.systemUTC());
        try {
            assertThat(runtime.kafkaPort()).isEqualTo(port);

            assertThat(topics(port, "create", "orders", "--partitions", "3")).isZero();
            assertThat(out.toString()).contains("Created topic orders.");

            assertThat(topics(port, "create", "orders")).isEqualTo(1);
            assertThat(err.toString()).contains("floe topics create: topic 'orders' already exists");

            assertThat(topics(port, "create", "orders", "--if-not-exists")).isZero();

            assertThat(topics(port, "list")).isZero();
            assertThat(out.toString().lines()).containsExactly("orders");

            assertThat(topics(port, "describe", "orders")).isZero();
            assertThat(out.toString()).contains("Topic: orders", "PartitionCount: 3", "Partition: 2\tLeader: 0");

            assertThat(get(runtime, "/health")).isEqualTo("ok");
            assertThat(get(runtime, "/metrics"))
                    .contains(
                            "jvm_memory_used_bytes",
                            "process_uptime_seconds",
                            "floe_storage_objects"); // published by the maintenance jobs
        } finally {
            assertThat(runtime.stop()).as("stopped cleanly").isTrue();
        }

        // The stores were closed (SQLite released its lock) and kept the topic.
        try (AgentRuntime again = AgentRuntime.start(settings, Clock.systemUTC())) {
            assertThat(topics(again.kafkaPort(), "list")).isZero();
            assertThat(out.toString().lines()).containsExactly("orders");
        }
    }

    @Test
    void reportsAnAgentThatDoesNotAnswer() throws IOException {
        int port = freePort();

        assertThat(topics(port, "list", "--timeout-ms", "1000")).isEqualTo(1);
        assertThat(err.toString()).startsWith("floe topics list: no answer from 127.0.0.1:" + port + " within 1000 ms");
    }

    @Test
    void aTakenPortFailsTheStartWithOneLine() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CommandLine floe = Floe.commandLine(Map.of());
            floe.setErr(new PrintWriter(err));

            int exitCode = floe.execute(
                    "agent",
                    "--listen",
                    "127.0.0.1:" + taken.getLocalPort(),
                    "--http-listen",
                    "127.0.0.1:0",
                    "--data-dir",
                    dataDir.toString());

            assertThat(exitCode).isEqualTo(1);
            assertThat(err.toString())
                    .startsWith("floe agent: cannot start Kafka listener on 127.0.0.1:" + taken.getLocalPort())
                    .hasLineCount(1);
        }
    }

    @Test
    void maintenanceCanBeTurnedOff() throws Exception {
        AgentSettings settings = settings(freePort(), "--maintenance", "false");

        try (AgentRuntime runtime = AgentRuntime.start(settings, Clock.systemUTC())) {
            assertThat(get(runtime, "/metrics"))
                    .contains("jvm_memory_used_bytes")
                    .doesNotContain("floe_storage");
        }
    }

    private AgentSettings settings(int port, String... more) {
        CommandLine floe = Floe.commandLine(Map.of());
        List<String> args = new ArrayList<>(List.of(
                "agent",
                "--listen",
                "127.0.0.1:" + port,
                "--http-listen",
                "127.0.0.1:0",
                "--data-dir",
                dataDir.toString(),
                "--flush-interval-ms",
                "5"));
        args.addAll(List.of(more));
        CommandLine.ParseResult parsed = floe.parseArgs(args.toArray(String[]::new));
        AgentCommand command = parsed.subcommand().commandSpec().commandLine().getCommand();
        return command.settings();
    }

    /** Runs {@code floe topics ARGS --bootstrap 127.0.0.1:PORT}, with fresh output buffers. */
    private int topics(int port, String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine floe = Floe.commandLine(Map.of());
        floe.setOut(new PrintWriter(out, true));
        floe.setErr(new PrintWriter(err, true));
        String[] command = new String[args.length + 3];
        command[0] = "topics";
        System.arraycopy(args, 0, command, 1, args.length);
        command[args.length + 1] = "--bootstrap";
        command[args.length + 2] = "127.0.0.1:" + port;
        return floe.execute(command);
    }

    private static String get(AgentRuntime runtime, String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runtime.httpPort() + path))
                .build();
        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    /** A port that was free a moment ago: the agent must advertise its real port, so it cannot bind port 0. */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
