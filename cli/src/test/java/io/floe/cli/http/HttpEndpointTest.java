package io.floe.cli.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The endpoint over real HTTP on an ephemeral loopback port. */
class HttpEndpointTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicBoolean serving = new AtomicBoolean(true);
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private HttpEndpoint endpoint;

    @BeforeEach
    void start() {
        new JvmMemoryMetrics().bindTo(registry);
        registry.counter("floe.test.requests", "topic", "orders").increment(3);
        RouteTable routes = HealthAndMetrics.addTo(new RouteTable(), registry, serving::get)
                .mount("/iceberg", exchange -> {
                    byte[] body = ("catalog " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                })
                .mount("/stream", exchange -> {
                    // A streamed answer that breaks off: it must not reach the client as a complete one.
                    exchange.sendResponseHeaders(200, 0);
                    exchange.getResponseBody().write("partial\n".getBytes(StandardCharsets.UTF_8));
                    exchange.getResponseBody().flush();
                    throw new IOException("broke off");
                });
        endpoint = HttpEndpoint.start("127.0.0.1", 0, routes);
    }

    @AfterEach
    void stop() {
        endpoint.close();
        registry.close();
    }

    private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10))
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aMountedHandlerThatThrowsWhileStreamingDropsTheConnection() {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + "/stream"))
                .timeout(Duration.ofSeconds(10))
                .build();
        assertThatThrownBy(() -> client.send(request, HttpResponse.BodyHandlers.ofString()))
                .as("the answer is not complete")
                .isInstanceOf(IOException.class);
    }

    @Test
    void metricsServesPrometheusText() throws Exception {
        HttpResponse<String> response = send("GET", "/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(response.body())
                .contains("floe_test_requests_total{topic=\"orders\"} 3.0")
                .contains("jvm_memory_used_bytes");
    }

    @Test
    void healthIsOkWhileServingAndUnavailableOtherwise() throws Exception {
        HttpResponse<String> healthy = send("GET", "/health");
        assertThat(healthy.statusCode()).isEqualTo(200);
        assertThat(healthy.body()).isEqualTo("ok");

        serving.set(false);

        assertThat(send("GET", "/health").statusCode()).isEqualTo(503);
    }

    @Test
    void unknownPathsAreNotFoundAndOtherMethodsNotAllowed() throws Exception {
        assertThat(send("GET", "/nothing").statusCode()).isEqualTo(404);
        assertThat(send("GET", "/healthz").statusCode()).isEqualTo(404);
        assertThat(send("GET", "/icebergs").statusCode()).isEqualTo(404);

        HttpResponse<String> post = send("POST", "/metrics");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
    }

    @Test
    void mountedHandlersGetEveryPathUnderTheirPrefix() throws Exception {
        HttpResponse<String> response = send("GET", "/iceberg/v1/config");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("catalog /iceberg/v1/config");
    }

    @Test
    void headAnswersWithoutABody() throws Exception {
        HttpResponse<String> response = send("HEAD", "/health");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEmpty();
    }
}
