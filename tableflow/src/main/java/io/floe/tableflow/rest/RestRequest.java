package io.floe.tableflow.rest;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One request to the catalog, independent of the HTTP server that received it.
 *
 * @param method the HTTP method, upper case
 * @param path the path below the catalog's mount point, still percent-encoded (namespaces arrive as
 *     {@code a%1Fb}, and decoding first would lose where one level ends), for example {@code /v1/config}
 * @param query the decoded query parameters; the first value of a repeated name wins
 * @param ifNoneMatch the {@code If-None-Match} header, which a load-table request may carry
 */
public record RestRequest(String method, String path, Map<String, String> query, Optional<String> ifNoneMatch) {

    public RestRequest {
        method = Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT);
        Objects.requireNonNull(path, "path");
        query = Map.copyOf(query);
        Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    }

    /**
     * A request from its raw parts: {@code rawQuery} as it appears after {@code ?} (null or empty for
     * none). A malformed escape in the query throws {@link IllegalArgumentException}.
     */
    public static RestRequest of(String method, String rawPath, String rawQuery, String ifNoneMatch) {
        return new RestRequest(method, rawPath, parseQuery(rawQuery), Optional.ofNullable(ifNoneMatch));
    }

    /** A GET of {@code rawPath} with no query and no headers. */
    public static RestRequest get(String rawPath) {
        return of("GET", rawPath, null, null);
    }

    Optional<String> param(String name) {
        return Optional.ofNullable(query.get(name));
    }

    private static Map<String, String> parseQuery(String rawQuery) {
        Map<String, String> params = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            String value = equals < 0 ? "" : pair.substring(equals + 1);
            params.putIfAbsent(
                    URLDecoder.decode(name, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
        }
        return params;
    }
}
