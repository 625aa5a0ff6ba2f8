package io.floe.tableflow.rest;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;

/**
 * Serves a {@link ReadOnlyRestCatalog} on the JDK's HTTP server, below a mount path such as
 * {@code /iceberg}. The handler exists before the catalog does (the agent's HTTP endpoint starts
 * first), so it answers 503 in the spec's error format until {@link #serve} hands it the catalog, and
 * again after {@link #stop}; {@link #off} makes it say why this agent has no catalog at all.
 * Thread-safe.
 */
public final class RestCatalogHandler implements HttpHandler {

    private final String mountPath;
    private volatile State state =
            new Unavailable(503, "ServiceUnavailableException", "the Iceberg catalog is starting; try again shortly");

    /** {@code mountPath}: where the server hands requests to this handler, for example {@code /iceberg}. */
    public RestCatalogHandler(String mountPath) {
        Objects.requireNonNull(mountPath, "mountPath");
        if (!mountPath.startsWith("/") || mountPath.endsWith("/")) {
            throw new IllegalArgumentException("mount path '" + mountPath + "' must start and not end with '/'");
        }
        this.mountPath = mountPath;
    }

    /** From now on, answers with {@code catalog}. */
    public void serve(ReadOnlyRestCatalog catalog) {
        state = new Serving(Objects.requireNonNull(catalog, "catalog"));
    }

    /** From now on, answers 404 with {@code reason}: this agent serves no catalog. */
    public void off(String reason) {
        state = new Unavailable(404, "NotFoundException", reason);
    }

    /** From now on, answers 503: the catalog is closing with the agent. */
    public void stop() {
        state = new Unavailable(503, "ServiceUnavailableException", "the agent is stopping");
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            send(exchange, answer(exchange));
        }
    }

    private RestReply answer(HttpExchange exchange) {
        String rawPath = exchange.getRequestURI().getRawPath();
        RestRequest request;
        try {
            request = RestRequest.of(
                    exchange.getRequestMethod(),
                    rawPath.startsWith(mountPath) ? rawPath.substring(mountPath.length()) : rawPath,
                    exchange.getRequestURI().getRawQuery(),
                    exchange.getRequestHeaders().getFirst("If-None-Match"));
        } catch (IllegalArgumentException e) {
            return RestErrors.badRequest(
                    "malformed query '" + exchange.getRequestURI().getRawQuery() + "': " + e.getMessage());
        }
        return state.answer(request);
    }

    private static void send(HttpExchange exchange, RestReply reply) throws IOException {
        reply.headers().forEach(exchange.getResponseHeaders()::set);
        if (!reply.hasBody() || exchange.getRequestMethod().equalsIgnoreCase("HEAD")) {
            exchange.sendResponseHeaders(reply.status(), -1);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", RestReply.JSON);
        exchange.sendResponseHeaders(reply.status(), reply.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(reply.body());
        }
    }

    private sealed interface State permits Serving, Unavailable {
        RestReply answer(RestRequest request);
    }

    private record Serving(ReadOnlyRestCatalog catalog) implements State {
        @Override
        public RestReply answer(RestRequest request) {
            return catalog.handle(request);
        }
    }

    private record Unavailable(int status, String type, String reason) implements State {
        @Override
        public RestReply answer(RestRequest request) {
            return RestErrors.of(status, type, reason);
        }
    }
}
