package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.Floe;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The agent's HTTP endpoint serves the Iceberg REST catalog at {@code /iceberg} when Tableflow runs. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AgentIcebergCatalogIT {

    @TempDir
    Path dataDir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void servesTheCatalogConfigAndRefusesWrites() throws Exception {
        try (AgentRuntime runtime = AgentRuntime.start(settings(), Clock.systemUTC())) {
            HttpResponse<String> config = send(runtime, "GET", "/iceberg/v1/config");
            assertThat(config.statusCode()).isEqualTo(200);
            assertThat(config.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(config.body())
                    .contains(
                            "\"defaults\":{}",
                            "\"overrides\":{}",
                            "\"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}\"");

            assertThat(send(runtime, "GET", "/iceberg/v1/namespaces").statusCode())
                    .isEqualTo(200);
            HttpResponse<String> post = send(runtime, "POST", "/iceberg/v1/namespaces");
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(ErrorResponseParser.fromJson(post.body()).message()).contains("read-only");
        }
    }

    @Test
    void anAgentWithoutTableflowSaysWhyItHasNoCatalog() throws Exception {
        try (AgentRuntime runtime = AgentRuntime.start(settings("--tableflow", "false"), Clock.systemUTC())) {
            HttpResponse<String> config = send(runtime, "GET", "/iceberg/v1/config");

            assertThat(config.statusCode()).isEqualTo(404);
            ErrorResponse error = ErrorResponseParser.fromJson(config.body());
            assertThat(error.code()).isEqualTo(404);
            assertThat(error.message()).contains("--tableflow=false");
        }
    }

    private AgentSettings settings(String... more) throws IOException {
        List<String> args = new ArrayList<>(List.of(
                "agent",
                "--listen",
                "127.0.0.1:" + freePort(),
                "--http-listen",
                "127.0.0.1:0",
                "--data-dir",
                dataDir.toString()));
        args.addAll(List.of(more));
        CommandLine.ParseResult parsed = Floe.commandLine(Map.of()).parseArgs(args.toArray(String[]::new));
        AgentCommand command = parsed.subcommand().commandSpec().commandLine().getCommand();
        return command.settings();
    }

    private HttpResponse<String> send(AgentRuntime runtime, String method, String path)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runtime.httpPort() + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
