package io.floe.tableflow.rest;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTUtil;

/**
 * A request path matched to one of the read routes. Namespaces in paths use the spec's default
 * separator, the unit separator {@code %1F} (this server advertises no other), and each level and
 * table name is URL-decoded the way Iceberg's client encodes it.
 *
 * @param kind which route
 * @param namespace the namespace of namespace and table routes, else empty
 * @param table the table name of table routes, else null
 */
record RestRoute(Kind kind, Namespace namespace, String table) {

    static final String NAMESPACE_SEPARATOR = "%1F";
    /** For the message of a request that matches no route. */
    static final String DESCRIPTION = "/v1/config, /v1/[{prefix}/]namespaces, /v1/[{prefix}/]namespaces/{namespace}"
            + ", /v1/[{prefix}/]namespaces/{namespace}/tables and /v1/[{prefix}/]namespaces/{namespace}/tables/{table}";

    enum Kind {
        CONFIG,
        NAMESPACES,
        NAMESPACE,
        TABLES,
        TABLE
    }

    TableIdentifier identifier() {
        return TableIdentifier.of(namespace, table);
    }

    /**
     * The route of {@code rawPath}, or empty when it matches none. A path segment that matches a route
     * but does not decode (an empty namespace level, a bad escape) throws {@link IllegalArgumentException}.
     */
    static Optional<RestRoute> parse(String rawPath, Optional<String> prefix) {
        if (!rawPath.startsWith("/v1/")) {
            return Optional.empty();
        }
        List<String> segments = Arrays.asList(rawPath.substring("/v1/".length()).split("/", -1));
        if (segments.equals(List.of("config"))) {
            return Optional.of(new RestRoute(Kind.CONFIG, Namespace.empty(), null));
        }
        if (prefix.isPresent() && segments.size() > 1 && segments.get(0).equals(prefix.get())) {
            segments = segments.subList(1, segments.size());
        }
        if (segments.isEmpty() || !segments.get(0).equals("namespaces")) {
            return Optional.empty();
        }
        return switch (segments.size()) {
            case 1 -> Optional.of(new RestRoute(Kind.NAMESPACES, Namespace.empty(), null));
            case 2 -> Optional.of(new RestRoute(Kind.NAMESPACE, namespace(segments.get(1)), null));
            case 3 ->
                segments.get(2).equals("tables")
                        ? Optional.of(new RestRoute(Kind.TABLES, namespace(segments.get(1)), null))
                        : Optional.empty();
            case 4 ->
                segments.get(2).equals("tables")
                        ? Optional.of(new RestRoute(Kind.TABLE, namespace(segments.get(1)), table(segments.get(3))))
                        : Optional.empty();
            default -> Optional.empty();
        };
    }

    /** The {@code parent} query parameter: levels separated by the unit separator, already URL-decoded. */
    static Namespace parent(Optional<String> parent) {
        if (parent.isEmpty() || parent.get().isEmpty()) {
            return Namespace.empty();
        }
        return checked(RESTUtil.namespaceFromQueryParam(parent.get(), NAMESPACE_SEPARATOR), parent.get());
    }

    private static Namespace namespace(String raw) {
        return checked(RESTUtil.decodeNamespace(raw, NAMESPACE_SEPARATOR), raw);
    }

    private static Namespace checked(Namespace namespace, String raw) {
        for (String level : namespace.levels()) {
            if (level.isEmpty()) {
                throw new IllegalArgumentException(
                        "invalid namespace '" + raw + "': a level is empty" + " (levels are separated by %1F)");
            }
        }
        return namespace;
    }

    private static String table(String raw) {
        String name = RESTUtil.decodeString(raw);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("invalid table name: empty");
        }
        return name;
    }
}
