package io.floe.tableflow.rest;

import static io.floe.tableflow.rest.ReadOnlyRestCatalogTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The handler's life: unavailable until it has a catalog, then serving, then unavailable again. */
class RestCatalogHandlerTest {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final RestCatalogHandler handler = new RestCatalogHandler("/iceberg");
    private final InMemoryCatalog catalog = new InMemoryCatalog();
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        catalog.initialize("memory", Map.of());
        catalog.createNamespace(Namespace.of("floe"));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/iceberg", handler);
        server.start();
    }

    @AfterEach
    void stop() throws IOException {
        server.stop(0);
        catalog.close();
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(
                                "http://127.0.0.1:" + server.getAddress().getPort() + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void unavailableUntilServingAndAfterStopping() throws Exception {
        assertError(get("/iceberg/v1/config"), 503, "ServiceUnavailableException", "starting");

        handler.serve(new ReadOnlyRestCatalog(catalog, RestCatalogConfig.DEFAULTS));
        assertThat(get("/iceberg/v1/namespaces").body()).contains("\"namespaces\":[[\"floe\"]]");

        handler.stop();
        assertError(get("/iceberg/v1/namespaces"), 503, "ServiceUnavailableException", "stopping");
    }

    @Test
    void anAgentWithoutTableflowSaysWhy() throws Exception {
        handler.off("no Tableflow here");

        assertError(get("/iceberg/v1/config"), 404, "NotFoundException", "no Tableflow here");
    }

    @Test
    void pathsOutsideTheSpecAreNotFound() throws Exception {
        handler.serve(new ReadOnlyRestCatalog(catalog, RestCatalogConfig.DEFAULTS));

        assertError(get("/iceberg"), 404, "NotFoundException", "no route for GET ");
        assertError(get("/iceberg/v2/config"), 404, "NotFoundException", "/v2/config");
        assertError(get("/iceberg/v1/other/namespaces"), 404, "NotFoundException", "/v1/other/namespaces");
    }
}
