package io.floe.tableflow.rest;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What {@code GET /v1/config} tells clients besides the endpoints.
 *
 * @param prefix the optional path segment after {@code /v1/} that the spec allows ({@code /v1/{prefix}/namespaces});
 *     when present it is sent as the {@code prefix} override, and routes answer with and without it
 * @param defaults catalog properties a client applies before its own (for example how its FileIO reaches
 *     the object store); never credentials
 * @param overrides catalog properties a client applies after its own
 */
public record RestCatalogConfig(Optional<String> prefix, Map<String, String> defaults, Map<String, String> overrides) {

    /** A prefix is one plain path segment, so clients and this server need not agree on its encoding. */
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._~-]{1,128}");
    /** Segments that start a route after {@code /v1/}: a prefix equal to one would make paths ambiguous. */
    private static final Set<String> RESERVED =
            Set.of("config", "oauth", "namespaces", "tables", "views", "transactions");

    /** No prefix, no defaults, no overrides. */
    public static final RestCatalogConfig DEFAULTS = new RestCatalogConfig(Optional.empty(), Map.of(), Map.of());

    public RestCatalogConfig {
        Objects.requireNonNull(prefix, "prefix");
        defaults = Map.copyOf(defaults);
        overrides = Map.copyOf(overrides);
        prefix.ifPresent(p -> {
            if (!PREFIX.matcher(p).matches() || RESERVED.contains(p)) {
                throw new IllegalArgumentException("REST catalog prefix '" + p + "' must be 1 to 128 of"
                        + " [A-Za-z0-9._~-] and none of " + RESERVED);
            }
        });
        if (overrides.containsKey("prefix")) {
            throw new IllegalArgumentException("set the REST catalog prefix through 'prefix', not as an override");
        }
    }

    public RestCatalogConfig withPrefix(String value) {
        return new RestCatalogConfig(Optional.of(value), defaults, overrides);
    }

    public RestCatalogConfig withDefaults(Map<String, String> values) {
        return new RestCatalogConfig(prefix, values, overrides);
    }

    public RestCatalogConfig withOverrides(Map<String, String> values) {
        return new RestCatalogConfig(prefix, defaults, values);
    }
}
