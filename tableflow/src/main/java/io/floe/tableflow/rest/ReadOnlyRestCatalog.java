package io.floe.tableflow.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTCatalogProperties.SnapshotMode;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

/**
 * The read routes of the Iceberg REST catalog spec over an Iceberg {@link Catalog}: config, list and
 * load namespaces, namespace exists, list tables, load table, table exists. Iceberg's
 * {@link CatalogHandlers} do the catalog work and its response classes carry the answers, so the JSON
 * is what Iceberg's own client reads. Every other method is refused with 405: Tableflow writes these
 * tables, and a second writer would break its exactly-once commits.
 *
 * <p>Thread-safe when the catalog is (Iceberg's JDBC catalog is). Never throws: every failure is an
 * error reply in the spec's format.
 */
public final class ReadOnlyRestCatalog {

    /** The routes {@code /v1/config} advertises; a client calls no other. */
    static final List<Endpoint> ENDPOINTS = List.of(
            Endpoint.V1_LIST_NAMESPACES,
            Endpoint.V1_LOAD_NAMESPACE,
            Endpoint.V1_NAMESPACE_EXISTS,
            Endpoint.V1_LIST_TABLES,
            Endpoint.V1_LOAD_TABLE,
            Endpoint.V1_TABLE_EXISTS);
    /** The largest page a list answers when the client pages (sends {@code pageToken}). */
    static final int PAGE_SIZE_MAX = 1000;

    private final Catalog catalog;
    private final SupportsNamespaces namespaces;
    private final RestCatalogConfig config;

    /** Serves {@code catalog}, which must support namespaces (every catalog Tableflow uses does). */
    public ReadOnlyRestCatalog(Catalog catalog, RestCatalogConfig config) {
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.config = Objects.requireNonNull(config, "config");
        if (!(catalog instanceof SupportsNamespaces supportsNamespaces)) {
            throw new IllegalArgumentException("the REST catalog needs a catalog with namespaces, not "
                    + catalog.getClass().getName());
        }
        this.namespaces = supportsNamespaces;
    }

    /** Answers {@code request}. */
    public RestReply handle(RestRequest request) {
        if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
            return RestErrors.readOnly(request);
        }
        try {
            Optional<RestRoute> route = RestRoute.parse(request.path(), config.prefix());
            if (route.isEmpty()) {
                return RestErrors.noRoute(request, RestRoute.DESCRIPTION);
            }
            boolean head = request.method().equals("HEAD");
            return switch (route.get().kind()) {
                case CONFIG -> json(configResponse());
                case NAMESPACES -> json(listNamespaces(request));
                case NAMESPACE ->
                    head
                            ? namespaceExists(route.get())
                            : json(CatalogHandlers.loadNamespace(
                                    namespaces, route.get().namespace()));
                case TABLES -> json(listTables(request, route.get()));
                case TABLE -> head ? tableExists(route.get()) : loadTable(request, route.get());
            };
        } catch (RuntimeException e) {
            return RestErrors.fromException(request, e);
        }
    }

    private ConfigResponse configResponse() {
        // One by one: the builder's bulk setters probe the map for a null key, which Map.of() refuses.
        ConfigResponse.Builder builder = ConfigResponse.builder().withEndpoints(ENDPOINTS);
        config.defaults().forEach(builder::withDefault);
        config.overrides().forEach(builder::withOverride);
        config.prefix().ifPresent(prefix -> builder.withOverride("prefix", prefix));
        return builder.build();
    }

    private RESTResponse listNamespaces(RestRequest request) {
        Namespace parent = RestRoute.parent(request.param("parent"));
        Optional<String> pageToken = pageToken(request);
        if (pageToken.isEmpty()) {
            return CatalogHandlers.listNamespaces(namespaces, parent);
        }
        return CatalogHandlers.listNamespaces(namespaces, parent, pageToken.get(), pageSize(request));
    }

    private RESTResponse listTables(RestRequest request, RestRoute route) {
        Optional<String> pageToken = pageToken(request);
        if (pageToken.isEmpty()) {
            return CatalogHandlers.listTables(catalog, route.namespace());
        }
        return CatalogHandlers.listTables(catalog, route.namespace(), pageToken.get(), pageSize(request));
    }

    private RestReply namespaceExists(RestRoute route) {
        CatalogHandlers.namespaceExists(namespaces, route.namespace());
        return RestReply.empty(204);
    }

    private RestReply tableExists(RestRoute route) {
        CatalogHandlers.tableExists(catalog, route.identifier());
        return RestReply.empty(204);
    }

    /**
     * The table's metadata and its location. The ETag names the metadata file and the snapshot mode, so
     * a client that sends it back in {@code If-None-Match} gets 304 until the next commit.
     */
    private RestReply loadTable(RestRequest request, RestRoute route) {
        SnapshotMode mode = snapshotMode(request);
        LoadTableResponse response = CatalogHandlers.loadTable(catalog, route.identifier(), mode);
        String etag = etag(response.metadataLocation(), mode);
        if (request.ifNoneMatch().map(header -> matches(header, etag)).orElse(false)) {
            return RestReply.empty(304).withHeader("ETag", etag);
        }
        return json(response).withHeader("ETag", etag);
    }

    private static SnapshotMode snapshotMode(RestRequest request) {
        String value = request.param("snapshots").orElse("all");
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "all" -> SnapshotMode.ALL;
            case "refs" -> SnapshotMode.REFS;
            default -> throw new IllegalArgumentException("invalid snapshots '" + value + "': expected all or refs");
        };
    }

    /**
     * The page token, when the client pages: the spec says a server returns everything in one answer
     * when {@code pageToken} is absent. A token is the offset of the next item, as Iceberg's own
     * {@link CatalogHandlers} paginate.
     */
    private static Optional<String> pageToken(RestRequest request) {
        Optional<String> token = request.param("pageToken");
        token.ifPresent(value -> {
            if (!value.isEmpty() && !value.matches("[0-9]{1,9}")) {
                throw new IllegalArgumentException("invalid pageToken '" + value + "'");
            }
        });
        return token;
    }

    private static String pageSize(RestRequest request) {
        Optional<String> value = request.param("pageSize");
        if (value.isEmpty()) {
            return Integer.toString(PAGE_SIZE_MAX);
        }
        int size;
        try {
            size = Integer.parseInt(value.get());
        } catch (NumberFormatException e) {
            size = 0;
        }
        if (size < 1) {
            throw new IllegalArgumentException("invalid pageSize '" + value.get() + "': expected a positive integer");
        }
        return Integer.toString(Math.min(size, PAGE_SIZE_MAX));
    }

    private static RestReply json(RESTResponse response) {
        return RestReply.json(200, RestJson.write(response));
    }

    static String etag(String metadataLocation, SnapshotMode mode) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((mode.name() + " " + metadataLocation).getBytes(StandardCharsets.UTF_8));
            return "\"" + HexFormat.of().formatHex(digest, 0, 16) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** Whether an {@code If-None-Match} header (a list of tags, or {@code *}) names {@code etag}. */
    private static boolean matches(String header, String etag) {
        for (String candidate : header.split(",")) {
            String tag = candidate.trim();
            if (tag.startsWith("W/")) {
                tag = tag.substring(2);
            }
            if (tag.equals("*") || tag.equals(etag) || ("\"" + tag + "\"").equals(etag)) {
                return true;
            }
        }
        return false;
    }
}
