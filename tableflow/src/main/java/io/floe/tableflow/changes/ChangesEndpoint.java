package io.floe.tableflow.changes;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves change queries on the agent's HTTP listener: {@code GET /tables/v1/{topic}/changes?from=&to=&kind=
 * &format=} answers 200 with the changes streamed as JSON lines ({@code application/x-ndjson}) or one
 * Parquet file, and the resolved range in the headers {@code Floe-Changes-From}, {@code Floe-Changes-To}
 * (offsets, {@code 0:120,1:98}: the next query's {@code from}) and {@code Floe-Changes-Snapshot}. A query
 * that cannot be answered gets a 4xx before anything is streamed, with {@code {"error": {"message",
 * "type", "code"}}}; so does one that fails before its first change is sent (the 200 and headers go out
 * with the first bytes). A query that fails while streaming ends with a dropped connection, so no client
 * takes a cut answer for whole, after such an error line (JSON; best effort, the drop may lose it).
 *
 * <p>The handler owns each exchange and closes it. It answers 503 until {@link #serve} and after {@link
 * #stop}, and while {@code queriesMax} queries already run. Thread-safe.
 */
public final class ChangesEndpoint implements HttpHandler {

    private static final Logger LOGGER = LoggerFactory.getLogger(ChangesEndpoint.class);

    /** Where the agent's HTTP listener mounts this handler. */
    public static final String MOUNT = "/tables";

    private static final String ROUTE = MOUNT + "/v1/{topic}/changes";
    private static final int STREAM_BUFFER_BYTES = 64 << 10;

    /** Plans change queries: {@link ChangeQueries#plan}. */
    @FunctionalInterface
    public interface Planner {
        ChangeQuery plan(String topic, Point from, Point to, ChangeKind kind);
    }

    private final Semaphore running;
    private final int queriesMax;
    private volatile Planner planner;
    private volatile String unavailable = "change queries are starting with the agent; try again shortly";
    private volatile int unavailableStatus = 503;

    public ChangesEndpoint(int queriesMax) {
        this.queriesMax = queriesMax;
        this.running = new Semaphore(queriesMax);
    }

    /** From now on, answers queries with {@code planner}. */
    public void serve(Planner planner) {
        this.planner = Objects.requireNonNull(planner, "planner");
    }

    /** From now on, answers 404 with {@code reason}: this agent answers no change queries. */
    public void off(String reason) {
        planner = null;
        unavailableStatus = 404;
        unavailable = reason;
    }

    /** From now on, answers 503: the agent is stopping. */
    public void stop() {
        planner = null;
        unavailableStatus = 503;
        unavailable = "the agent is stopping";
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestMethod().equals("GET")) {
            exchange.getResponseHeaders().set("Allow", "GET");
            reply(
                    exchange,
                    405,
                    "MethodNotAllowedException",
                    exchange.getRequestMethod() + " is not served: change queries are GET " + ROUTE);
            return;
        }
        Request request;
        try {
            request = request(exchange);
        } catch (IllegalArgumentException e) {
            reply(exchange, 400, "BadRequestException", e.getMessage());
            return;
        } catch (ChangeQueryException e) {
            reply(exchange, e.reason().status(), e.reason().name(), e.getMessage());
            return;
        }
        Planner current = planner;
        if (current == null) {
            reply(exchange, unavailableStatus, "ServiceUnavailableException", unavailable);
            return;
        }
        if (!running.tryAcquire()) {
            exchange.getResponseHeaders().set("Retry-After", "1");
            reply(
                    exchange,
                    503,
                    "ServiceUnavailableException",
                    queriesMax + " change queries are running on this agent already; try again shortly");
            return;
        }
        try {
            answer(exchange, current, request);
        } finally {
            running.release();
        }
    }

    private void answer(HttpExchange exchange, Planner current, Request request) throws IOException {
        ChangeQuery query;
        try {
            query = current.plan(request.topic(), request.from(), request.to(), request.kind());
        } catch (ChangeQueryException e) {
            reply(exchange, e.reason().status(), e.reason().name(), e.getMessage());
            return;
        } catch (RuntimeException e) {
            LOGGER.warn("change query failed to plan topic={} query={}", request.topic(), request, e);
            reply(exchange, 500, "ServiceFailureException", "the change query failed: " + e);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", request.format().contentType());
        exchange.getResponseHeaders().set("Floe-Changes-From", query.from().toString());
        exchange.getResponseHeaders().set("Floe-Changes-To", query.to().toString());
        exchange.getResponseHeaders().set("Floe-Changes-Snapshot", Long.toString(query.snapshotId()));
        DeferredBody deferred = new DeferredBody(exchange);
        OutputStream body = new BufferedOutputStream(deferred, STREAM_BUFFER_BYTES);
        ChangeWriter writer = request.format().open(body, query.rowSchema());
        try {
            query.run(writer);
            writer.finish();
            body.flush();
        } catch (IOException | RuntimeException e) {
            if (deferred.started()) {
                throw brokeOff(request, writer, body, e);
            }
            // Nothing was sent yet (a min delta sends nothing before its end, a full delta nothing before
            // its first change): the failure gets its own status.
            refuse(exchange, request, e);
            return;
        }
        deferred.close();
        exchange.close();
    }

    private static void refuse(HttpExchange exchange, Request request, Exception e) throws IOException {
        exchange.getResponseHeaders().remove("Floe-Changes-From");
        exchange.getResponseHeaders().remove("Floe-Changes-To");
        exchange.getResponseHeaders().remove("Floe-Changes-Snapshot");
        if (e instanceof ChangeQueryException refused) {
            LOGGER.info("change query refused topic={} query={}: {}", request.topic(), request, e.getMessage());
            reply(exchange, refused.reason().status(), refused.reason().name(), refused.getMessage());
        } else {
            LOGGER.warn("change query failed topic={} query={}", request.topic(), request, e);
            reply(exchange, 500, "ServiceFailureException", "the change query failed: " + e);
        }
    }

    /**
     * The answer's body, whose 200 and headers go out with its first bytes: until then a failure can
     * still be answered with its own status.
     */
    private static final class DeferredBody extends OutputStream {
        private final HttpExchange exchange;
        private OutputStream out;

        DeferredBody(HttpExchange exchange) {
            this.exchange = exchange;
        }

        boolean started() {
            return out != null;
        }

        private OutputStream out() throws IOException {
            if (out == null) {
                exchange.sendResponseHeaders(200, 0);
                out = exchange.getResponseBody();
            }
            return out;
        }

        @Override
        public void write(int b) throws IOException {
            out().write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            out().write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            if (out != null) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            out().close(); // an empty answer still gets its 200
        }
    }

    /**
     * Ends an answer that failed while streaming: the error line where the format has one, then the
     * exception to throw out of the handler without closing the exchange, so the server drops the
     * connection and the chunked answer never gets its end.
     */
    private static IOException brokeOff(Request request, ChangeWriter writer, OutputStream body, Exception cause) {
        String message = cause instanceof ChangeQueryException refused
                ? refused.getMessage()
                : "the change query failed while streaming: " + cause;
        if (cause instanceof ChangeQueryException) {
            LOGGER.info("change query broke off topic={} query={}: {}", request.topic(), request, message);
        } else {
            LOGGER.warn("change query broke off topic={} query={}", request.topic(), request, cause);
        }
        try {
            writer.fail(message);
            body.flush();
        } catch (IOException | RuntimeException ignored) {
            // the client may be gone; the connection is dropped anyway
        }
        return new IOException("change query broke off: " + message, cause);
    }

    private static void reply(HttpExchange exchange, int status, String type, String message) throws IOException {
        byte[] body = ChangeJson.error(status, type, message).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
        exchange.close();
    }

    /** A parsed request. */
    record Request(String topic, Point from, Point to, ChangeKind kind, ChangeWriter.Format format) {
        @Override
        public String toString() {
            return "from=" + from + " to=" + to + " kind=" + kind.text() + " format=" + format.text();
        }
    }

    private static Request request(HttpExchange exchange) {
        String path = exchange.getRequestURI().getRawPath();
        String prefix = MOUNT + "/v1/";
        if (!path.startsWith(prefix) || !path.endsWith("/changes") || path.length() <= (prefix + "/changes").length()) {
            throw new ChangeQueryException(
                    ChangeQueryException.Reason.NOT_FOUND,
                    "no route for " + path + "; this endpoint serves GET " + ROUTE);
        }
        String topic = decode(path.substring(prefix.length(), path.length() - "/changes".length()));
        if (topic.isEmpty() || topic.contains("/")) {
            throw new IllegalArgumentException("invalid topic name '" + topic + "' in " + path);
        }
        Map<String, String> params = query(exchange.getRequestURI().getRawQuery());
        for (String name : params.keySet()) {
            if (!java.util.Set.of("from", "to", "kind", "format").contains(name)) {
                throw new IllegalArgumentException(
                        "unknown parameter '" + name + "': give from, to (default latest), kind (append, full or"
                                + " min; default full) and format (json or parquet; default json)");
            }
        }
        String from = params.get("from");
        if (from == null || from.isBlank()) {
            throw new IllegalArgumentException("parameter 'from' is missing: give " + Point.FORMS);
        }
        return new Request(
                topic,
                Point.parse(from),
                Point.parse(params.getOrDefault("to", "latest")),
                ChangeKind.parse(params.getOrDefault("kind", "full")),
                ChangeWriter.Format.parse(params.getOrDefault("format", "json")));
    }

    private static Map<String, String> query(String rawQuery) {
        Map<String, String> params = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = decode(equals < 0 ? "" : pair.substring(equals + 1));
            if (params.put(name, value) != null) {
                throw new IllegalArgumentException("parameter '" + name + "' is given twice");
            }
        }
        return params;
    }

    private static String decode(String raw) {
        return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    }
}
