package io.floe.cli.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.floe.core.concurrency.Concurrency;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's HTTP server (the JDK's {@link HttpServer}), bound to one host and port and serving a
 * {@link RouteTable}. Requests run on a small fixed pool, so a slow handler cannot take threads
 * without bound. Closing stops accepting and drops open connections.
 */
public final class HttpEndpoint implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(HttpEndpoint.class);
    /**
     * Scrapes and health checks, and the change queries that stream on these threads (at most two at
     * once, see {@code ChangeLimits#queriesMax}), which leaves two for the rest.
     */
    private static final int THREADS = 4;

    private static final int BACKLOG = 64;

    private final HttpServer server;
    private final ExecutorService executor;

    private HttpEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Binds {@code host:port} (port 0 picks a free port) and starts serving {@code routes}. */
    public static HttpEndpoint start(String host, int port, RouteTable routes) {
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("cannot resolve HTTP listener host " + host);
        }
        HttpServer server;
        try {
            server = HttpServer.create(address, BACKLOG);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        ExecutorService executor = Concurrency.threads().pool("floe-http", THREADS);
        server.setExecutor(executor);
        server.createContext("/", new Dispatcher(routes));
        server.start();
        return new HttpEndpoint(server, executor);
    }

    /** The bound port: the configured one, or the one picked for port 0. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends each request to its exact route, else its mount, else answers 404. */
    private static final class Dispatcher implements HttpHandler {

        private final RouteTable routes;

        Dispatcher(RouteTable routes) {
            this.routes = routes;
        }

        /**
         * A mounted handler owns its exchange: it closes it when its answer is complete, and throws
         * without closing it to make the server drop the connection (a streamed answer that broke off
         * must not look complete).
         */
        @Override
        public void handle(HttpExchange exchange) throws IOException {
            try {
                String path = exchange.getRequestURI().getPath();
                Optional<Supplier<TextResponse>> exact = routes.exact(path);
                if (exact.isPresent()) {
                    try (exchange) {
                        answerGet(exchange, exact.get());
                    }
                    return;
                }
                Optional<HttpHandler> mounted = routes.mounted(path);
                if (mounted.isPresent()) {
                    mounted.get().handle(exchange);
                    return;
                }
                try (exchange) {
                    send(exchange, new TextResponse(404, TextResponse.PLAIN, "no route for " + path + "\n"));
                }
            } catch (RuntimeException e) {
                LOGGER.warn(
                        "HTTP request failed method={} uri={}",
                        exchange.getRequestMethod(),
                        exchange.getRequestURI(),
                        e);
                throw e;
            }
        }

        private static void answerGet(HttpExchange exchange, Supplier<TextResponse> responder) throws IOException {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, new TextResponse(405, TextResponse.PLAIN, "method " + method + " not allowed\n"));
                return;
            }
            send(exchange, responder.get());
        }

        private static void send(HttpExchange exchange, TextResponse response) throws IOException {
            byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", response.contentType());
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(response.status(), -1);
                return;
            }
            if (body.length == 0) {
                exchange.sendResponseHeaders(response.status(), -1);
                return;
            }
            exchange.sendResponseHeaders(response.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
