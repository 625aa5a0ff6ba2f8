package io.floe.tableflow.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link ChangesEndpoint} on the JDK's HTTP server, with a planner that answers or fails as told. */
class ChangesEndpointTest {

    private static final Schema ROW = new Schema(
            Types.NestedField.required(1, "kafka_offset", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    private final ChangesEndpoint endpoint = new ChangesEndpoint(1);
    private final HttpClient client = HttpClient.newHttpClient();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private HttpServer server;
    private volatile int failAfter = Integer.MAX_VALUE;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.setExecutor(threads);
        server.createContext(ChangesEndpoint.MOUNT, endpoint);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        threads.shutdownNow();
    }

    @Test
    void streamsJsonLinesWithTheResolvedRangeInTheHeaders() throws Exception {
        endpoint.serve(this::plan);
        HttpResponse<String> response = get("/tables/v1/orders/changes?from=0:0&kind=full");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/x-ndjson");
        assertThat(response.headers().firstValue("Floe-Changes-To")).hasValue("0:3");
        assertThat(response.body().lines().toList())
                .containsExactly(
                        "{\"op\":\"c\",\"key\":\"azA=\",\"before\":null,\"after\":{\"kafka_offset\":0,\"name\":\"a\"},"
                                + "\"partition\":0,\"offset\":0,\"timestamp\":\"1970-01-01T00:00:00Z\","
                                + "\"snapshot_id\":7,\"commit_timestamp\":\"1970-01-01T00:00:01Z\"}",
                        "{\"op\":\"u\",\"key\":\"azA=\",\"before\":{\"kafka_offset\":0,\"name\":\"a\"},"
                                + "\"after\":{\"kafka_offset\":1,\"name\":\"b\"},\"partition\":0,\"offset\":1,"
                                + "\"timestamp\":\"1970-01-01T00:00:00.001Z\",\"snapshot_id\":7,"
                                + "\"commit_timestamp\":\"1970-01-01T00:00:01Z\"}",
                        "{\"op\":\"d\",\"key\":\"azA=\",\"before\":{\"kafka_offset\":1,\"name\":\"b\"},\"after\":null,"
                                + "\"partition\":0,\"offset\":2,\"timestamp\":\"1970-01-01T00:00:00.002Z\","
                                + "\"snapshot_id\":7,\"commit_timestamp\":\"1970-01-01T00:00:01Z\"}");
    }

    @Test
    void aQueryThatFailsWhileStreamingEndsWithAnErrorLineAndABrokenConnection() throws Exception {
        endpoint.serve(this::plan);
        failAfter = 2000; // past the first bytes sent: the 200 is out

        HttpResponse<java.io.InputStream> response = client.send(
                HttpRequest.newBuilder(uri("/tables/v1/orders/changes?from=earliest"))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        List<String> lines = new ArrayList<>();
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            assertThatThrownBy(() -> {
                        String line;
                        while ((line = reader.readLine()) != null) {
                            lines.add(line);
                        }
                    })
                    .as("the answer never ends cleanly")
                    .isInstanceOf(IOException.class);
        }
        // The error line is best effort: the dropped connection may lose what was sent just before it.
        assertThat(lines).hasSizeGreaterThan(100).hasSizeLessThanOrEqualTo(2001);
        assertThat(lines.subList(0, lines.size() - 1)).allMatch(line -> line.startsWith("{\"op\":"));
        String last = lines.get(lines.size() - 1);
        if (last.startsWith("{\"error\":")) {
            assertThat(last).contains("partition 0 of topic orders no longer holds");
        } else {
            assertThat(last).startsWith("{\"op\":");
        }
    }

    @Test
    void aQueryThatFailsBeforeItsFirstChangeIsSentGetsItsOwnStatus() throws Exception {
        endpoint.serve(this::plan);
        failAfter = 1; // one change, still in the buffers
        HttpResponse<String> response = get("/tables/v1/orders/changes?from=earliest");
        assertThat(response.statusCode()).isEqualTo(410);
        assertThat(response.headers().firstValue("Floe-Changes-To")).isEmpty();
        assertThat(response.body())
                .isEqualTo("{\"error\":{\"message\":\"partition 0 of topic orders no longer holds them\","
                        + "\"type\":\"GONE\",\"code\":410}}\n");
    }

    @Test
    void refusesWhatItCannotAnswerWithAStatusAndOneLine() throws Exception {
        assertThat(get("/tables/v1/orders/changes?from=earliest").statusCode())
                .as("before it serves")
                .isEqualTo(503);
        endpoint.serve(this::plan);
        HttpResponse<String> malformed = get("/tables/v1/orders/changes?from=yesterday");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.body()).contains("cannot read the point 'yesterday'");
        assertThat(get("/tables/v1/orders/changes").body()).contains("parameter 'from' is missing");
        assertThat(get("/tables/v1/orders/changes?from=earliest&kind=all").body())
                .contains("unknown change kind 'all': give append, full or min");
        assertThat(get("/tables/v1/orders/changes?from=earliest&frm=1").body()).contains("unknown parameter 'frm'");
        HttpResponse<String> missing = get("/tables/v1/nothing/changes?from=earliest");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("\"code\":404").contains("topic nothing has no table");
        assertThat(get("/tables/v1/orders/history?from=earliest").statusCode()).isEqualTo(404);
        HttpResponse<String> post = client.send(
                HttpRequest.newBuilder(uri("/tables/v1/orders/changes?from=earliest"))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET");
        endpoint.off("this agent runs with --tableflow=false");
        assertThat(get("/tables/v1/orders/changes?from=earliest").statusCode()).isEqualTo(404);
    }

    private ChangeQuery plan(String topic, Point from, Point to, ChangeKind kind) {
        if (!topic.equals("orders")) {
            throw new ChangeQueryException(ChangeQueryException.Reason.NOT_FOUND, "topic " + topic + " has no table");
        }
        return new ChangeQuery() {
            @Override
            public String table() {
                return "floe.orders";
            }

            @Override
            public ChangeKind kind() {
                return kind;
            }

            @Override
            public Offsets from() {
                return new Offsets(new TreeMap<>(java.util.Map.of(0, 0L)));
            }

            @Override
            public Offsets to() {
                return new Offsets(new TreeMap<>(java.util.Map.of(0, 3L)));
            }

            @Override
            public long snapshotId() {
                return 7;
            }

            @Override
            public Schema rowSchema() {
                return ROW;
            }

            @Override
            public long run(ChangeSink sink) throws IOException {
                Commit commit = new Commit(7, Instant.ofEpochSecond(1));
                ByteBuffer key = ByteBuffer.wrap("k0".getBytes(StandardCharsets.UTF_8));
                GenericRecord a = row(0, "a");
                GenericRecord b = row(1, "b");
                List<Change> changes = new ArrayList<>(List.of(
                        new Change(Op.INSERT, key, null, a, 0, 0, 0, commit),
                        new Change(Op.UPDATE, key, a, b, 0, 1, 1, commit),
                        new Change(Op.DELETE, key, b, null, 0, 2, 2, commit)));
                for (long offset = 3; failAfter != Integer.MAX_VALUE && offset < 3000; offset++) {
                    changes.add(new Change(Op.INSERT, key, null, row(offset, "x"), 0, offset, offset, commit));
                }
                for (int i = 0; i < changes.size(); i++) {
                    if (i == failAfter) {
                        throw new ChangeQueryException(
                                ChangeQueryException.Reason.GONE, "partition 0 of topic orders no longer holds them");
                    }
                    sink.accept(changes.get(i));
                }
                return changes.size();
            }
        };
    }

    private static GenericRecord row(long offset, String name) {
        GenericRecord row = GenericRecord.create(ROW);
        row.setField("kafka_offset", offset);
        row.setField("name", name);
        return row;
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }
}
