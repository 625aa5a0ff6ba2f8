package io.floe.tableflow.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.floe.core.object.LocalObjectStore;
import io.floe.tableflow.catalog.IcebergCatalogs;
import io.floe.tableflow.io.ObjectLocations;
import io.floe.tableflow.io.ObjectStoreFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog over real HTTP (the JDK's server on a loopback port) on Iceberg's JDBC catalog in SQLite
 * with its files in a local object store, read by Iceberg's own {@link RESTCatalog} client and by
 * plain HTTP requests for the error cases.
 */
class ReadOnlyRestCatalogTest {

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));
    private static final TableIdentifier ORDERS = TableIdentifier.of("floe", "orders");

    @TempDir
    Path dir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private LocalObjectStore objects;
    private Catalog catalog;
    private HttpServer server;
    private RestCatalogHandler handler;

    @BeforeEach
    void start() throws IOException {
        objects = new LocalObjectStore(dir.resolve("objects"));
        ObjectLocations locations =
                new ObjectLocations("file:" + dir.resolve("objects").toAbsolutePath());
        catalog = IcebergCatalogs.jdbc(
                "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath(),
                null,
                null,
                locations.root() + "/tables",
                new ObjectStoreFileIO(objects, locations, dir.resolve("spool")));
        SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
        namespaces.createNamespace(Namespace.of("floe"), Map.of("owner", "tableflow"));
        namespaces.createNamespace(Namespace.of("floe", "archive"));
        namespaces.createNamespace(Namespace.of("floe_dead_letters"));
        catalog.createTable(ORDERS, SCHEMA, PartitionSpec.unpartitioned());
        handler = new RestCatalogHandler("/iceberg");
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/iceberg", handler);
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop(0);
        ((AutoCloseable) catalog).close();
        objects.close();
    }

    private void serve(RestCatalogConfig config) {
        handler.serve(new ReadOnlyRestCatalog(catalog, config));
    }

    private String uri() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/iceberg";
    }

    private RESTCatalog client(Map<String, String> properties) {
        RESTCatalog client = new RESTCatalog();
        Map<String, String> all = new HashMap<>(properties);
        all.put(CatalogProperties.URI, uri());
        client.initialize("floe", all);
        return client;
    }

    @Test
    void icebergsRestClientFindsAndReadsTheTable() throws Exception {
        serve(RestCatalogConfig.DEFAULTS);
        List<Record> written = append(catalog.loadTable(ORDERS), 0, 100);
        written.addAll(append(catalog.loadTable(ORDERS), 100, 50));

        try (RESTCatalog client = client(Map.of())) {
            assertThat(client.listNamespaces())
                    .containsExactlyInAnyOrder(Namespace.of("floe"), Namespace.of("floe_dead_letters"));
            assertThat(client.listNamespaces(Namespace.of("floe"))).containsExactly(Namespace.of("floe", "archive"));
            assertThat(client.loadNamespaceMetadata(Namespace.of("floe"))).containsEntry("owner", "tableflow");
            assertThat(client.namespaceExists(Namespace.of("floe", "archive"))).isTrue();
            assertThat(client.namespaceExists(Namespace.of("nope"))).isFalse();
            assertThat(client.listTables(Namespace.of("floe"))).containsExactly(ORDERS);
            assertThat(client.listTables(Namespace.of("floe", "archive"))).isEmpty();
            assertThat(client.tableExists(ORDERS)).isTrue();
            assertThat(client.tableExists(TableIdentifier.of("floe", "nope"))).isFalse();

            Table table = client.loadTable(ORDERS);
            Table local = catalog.loadTable(ORDERS);
            assertThat(table.location()).isEqualTo(local.location()).startsWith("file:");
            assertThat(table.currentSnapshot().snapshotId())
                    .isEqualTo(local.currentSnapshot().snapshotId());
            assertThat(table.schema().sameSchema(SCHEMA)).isTrue();
            assertThat(rows(table)).containsExactlyInAnyOrderElementsOf(written);
            // Metadata tables resolve on the client from the base table.
            Table snapshots = client.loadTable(TableIdentifier.of("floe", "orders", "snapshots"));
            assertThat(snapshots.schema().findField("snapshot_id")).isNotNull();

            assertThatThrownBy(() -> client.loadTable(TableIdentifier.of("floe", "nope")))
                    .isInstanceOf(NoSuchTableException.class);
            assertThatThrownBy(() -> client.listTables(Namespace.of("nope")))
                    .isInstanceOf(NoSuchNamespaceException.class);
        }
    }

    @Test
    void theClientReadsThroughAPrefixAndGetsTheConfiguredDefaults() throws Exception {
        serve(RestCatalogConfig.DEFAULTS
                .withPrefix("floe")
                .withDefaults(Map.of("clients", "3"))
                .withOverrides(Map.of("rest-page-size", "1")));
        List<Record> written = append(catalog.loadTable(ORDERS), 0, 10);

        JsonNode config = json.readTree(get("/v1/config?warehouse=anything").body());
        assertThat(config.get("overrides").get("prefix").asText()).isEqualTo("floe");
        assertThat(config.get("defaults").get("clients").asText()).isEqualTo("3");
        assertThat(config.get("endpoints"))
                .extracting(JsonNode::asText)
                .containsExactlyInAnyOrder(
                        "GET /v1/{prefix}/namespaces",
                        "GET /v1/{prefix}/namespaces/{namespace}",
                        "HEAD /v1/{prefix}/namespaces/{namespace}",
                        "GET /v1/{prefix}/namespaces/{namespace}/tables",
                        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
                        "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}");
        assertThat(get("/v1/floe/namespaces/floe/tables").statusCode()).isEqualTo(200);

        try (RESTCatalog client = client(Map.of())) {
            // rest-page-size=1 makes the client page through the two namespaces one at a time.
            assertThat(client.listNamespaces()).hasSize(2);
            assertThat(rows(client.loadTable(ORDERS))).containsExactlyInAnyOrderElementsOf(written);
        }
    }

    @Test
    void unknownNamespacesAndTablesAreNotFoundInTheSpecsErrorFormat() throws Exception {
        serve(RestCatalogConfig.DEFAULTS);

        assertError(get("/v1/namespaces/nope"), 404, "NoSuchNamespaceException", "nope");
        assertError(get("/v1/namespaces/nope/tables"), 404, "NoSuchNamespaceException", "nope");
        assertError(get("/v1/namespaces?parent=nope"), 404, "NoSuchNamespaceException", "nope");
        assertError(get("/v1/namespaces/floe/tables/nope"), 404, "NoSuchTableException", "floe.nope");
        assertError(
                get("/v1/namespaces/floe%1Farchive/tables/orders"), 404, "NoSuchTableException", "floe.archive.orders");
        assertError(get("/v1/namespaces/floe/views"), 404, "NotFoundException", "no route");
        assertError(get("/v1/namespaces/floe/tables/orders/metrics"), 404, "NotFoundException", "no route");

        HttpResponse<String> head = send("HEAD", "/v1/namespaces/floe/tables/nope");
        assertThat(head.statusCode()).isEqualTo(404);
        assertThat(head.body()).isEmpty();
        assertThat(send("HEAD", "/v1/namespaces/floe/tables/orders").statusCode())
                .isEqualTo(204);
        assertThat(send("HEAD", "/v1/namespaces/floe%1Farchive").statusCode()).isEqualTo(204);
    }

    @Test
    void writesAreRefusedBecauseTableflowOwnsTheTables() throws Exception {
        serve(RestCatalogConfig.DEFAULTS);
        String create = "{\"name\": \"evil\", \"schema\": {\"type\": \"struct\", \"schema-id\": 0, \"fields\": []}}";

        HttpResponse<String> post = send("POST", "/v1/namespaces/floe/tables", create);
        assertError(post, 405, "MethodNotAllowedException", "read-only");
        assertThat(post.body()).contains("Tableflow owns these tables");
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        assertError(
                send("DELETE", "/v1/namespaces/floe/tables/orders"),
                405,
                "MethodNotAllowedException",
                "DELETE /v1/namespaces/floe/tables/orders");
        assertError(
                send("POST", "/v1/namespaces", "{\"namespace\": [\"x\"]}"),
                405,
                "MethodNotAllowedException",
                "read-only");

        try (RESTCatalog client = client(Map.of())) {
            // The client knows from /v1/config that the server has no create-table endpoint.
            assertThatThrownBy(() -> client.createTable(TableIdentifier.of("floe", "evil"), SCHEMA))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
        assertThat(catalog.listTables(Namespace.of("floe"))).containsExactly(ORDERS);
    }

    @Test
    void malformedRequestsAreBadRequests() throws Exception {
        serve(RestCatalogConfig.DEFAULTS);

        assertError(get("/v1/namespaces?pageToken=&pageSize=0"), 400, "BadRequestException", "pageSize");
        assertError(get("/v1/namespaces/floe/tables?pageToken=x"), 400, "BadRequestException", "pageToken");
        assertError(get("/v1/namespaces/floe/tables/orders?snapshots=some"), 400, "BadRequestException", "snapshots");
        assertError(get("/v1/namespaces/floe%1F%1Fx"), 400, "BadRequestException", "empty");
        assertError(get("/v1/namespaces/%1F/tables"), 400, "BadRequestException", "empty");
    }

    @Test
    void listsPageWhenTheClientAsksAndAnswerWholeWhenItDoesNot() throws Exception {
        serve(RestCatalogConfig.DEFAULTS);
        catalog.createTable(TableIdentifier.of("floe", "payments"), SCHEMA);
        catalog.createTable(TableIdentifier.of("floe", "refunds"), SCHEMA);

        assertThat(json.readTree(get("/v1/namespaces/floe/tables").body()).get("identifiers"))
                .hasSize(3);
        JsonNode first = json.readTree(
                get("/v1/namespaces/floe/tables?pageToken=&pageSize=2").body());
        assertThat(first.get("identifiers")).hasSize(2);
        String next = first.get("next-page-token").asText();
        JsonNode second = json.readTree(
                get("/v1/namespaces/floe/tables?pageSize=2&pageToken=" + next).body());
        assertThat(second.get("identifiers")).hasSize(1);
        assertThat(second.path("next-page-token").isMissingNode()
                        || second.get("next-page-token").isNull())
                .isTrue();
    }

    @Test
    void loadTableAnswersNotModifiedUntilTheNextCommit() throws Exception {
        serve(RestCatalogConfig.DEFAULTS);
        HttpResponse<String> loaded = get("/v1/namespaces/floe/tables/orders");
        assertThat(loaded.statusCode()).isEqualTo(200);
        JsonNode body = json.readTree(loaded.body());
        assertThat(body.get("metadata-location").asText())
                .isEqualTo(((HasTableOperations) catalog.loadTable(ORDERS))
                        .operations()
                        .current()
                        .metadataFileLocation());
        assertThat(body.get("metadata").get("format-version").asInt()).isEqualTo(2);
        String etag = loaded.headers().firstValue("ETag").orElseThrow();

        HttpResponse<String> unchanged = send("GET", "/v1/namespaces/floe/tables/orders", null, etag);
        assertThat(unchanged.statusCode()).isEqualTo(304);
        assertThat(unchanged.body()).isEmpty();

        append(catalog.loadTable(ORDERS), 0, 1);
        HttpResponse<String> changed = send("GET", "/v1/namespaces/floe/tables/orders", null, etag);
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(changed.headers().firstValue("ETag")).isPresent().get().isNotEqualTo(etag);
        assertThat(get("/v1/namespaces/floe/tables/orders?snapshots=refs")
                        .headers()
                        .firstValue("ETag"))
                .isPresent()
                .get()
                .isNotEqualTo(changed.headers().firstValue("ETag").get());
    }

    private List<Record> append(Table table, int from, int count) throws IOException {
        List<Record> rows = new ArrayList<>();
        DataWriter<Record> writer = Parquet.writeData(
                        table.io().newOutputFile(table.location() + "/data/" + UUID.randomUUID() + ".parquet"))
                .schema(table.schema())
                .createWriterFunc(GenericParquetWriter::create)
                .withSpec(table.spec())
                .overwrite()
                .build();
        try (writer) {
            for (long id = from; id < from + count; id++) {
                Record row = GenericRecord.create(SCHEMA).copy(Map.of("id", id, "name", "n" + id));
                writer.write(row);
                rows.add(row);
            }
        }
        table.newAppend().appendFile(writer.toDataFile()).commit();
        return rows;
    }

    private static List<Record> rows(Table table) {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(rows::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send("GET", path);
    }

    private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        return send(method, path, null, null);
    }

    private HttpResponse<String> send(String method, String path, String body)
            throws IOException, InterruptedException {
        return send(method, path, body, null);
    }

    private HttpResponse<String> send(String method, String path, String body, String ifNoneMatch)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri() + path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(10));
        if (ifNoneMatch != null) {
            request.header("If-None-Match", ifNoneMatch);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    static void assertError(HttpResponse<String> response, int code, String type, String messagePart) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(code);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        ErrorResponse error = ErrorResponseParser.fromJson(response.body());
        assertThat(error.code()).isEqualTo(code);
        assertThat(error.type()).isEqualTo(type);
        assertThat(error.message()).contains(messagePart);
        assertThat(response.body()).doesNotContain("\"stack\"").doesNotContain("\tat ");
    }
}
