package io.floe.cli.agent;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.metadata.sql.SqlMetadataStore;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens the stores that URLs name. This is the one place that maps a URL scheme to an
 * implementation: adding a backend is adding a case to {@link #open}.
 *
 * <ul>
 *   <li>{@code sqlite:PATH} — the embedded SQLite metadata store</li>
 *   <li>{@code file:PATH} — the local-directory object store ({@code file:///abs/path} works too)</li>
 *   <li>{@code postgresql:} and {@code s3:} — planned, rejected with "not supported yet"</li>
 * </ul>
 */
final class Backends {

    private static final Pattern URL = Pattern.compile("([a-z][a-z0-9+.-]*):(.*)", Pattern.DOTALL);

    /** What a store is for, so a URL naming the wrong kind of store is rejected before anything opens. */
    private enum Role {
        METADATA("metadata store", "a metadata store"),
        OBJECTS("object store", "an object store");

        private final String description;
        private final String withArticle;

        Role(String description, String withArticle) {
            this.description = description;
            this.withArticle = withArticle;
        }
    }

    private Backends() {}

    /** Opens the metadata store {@code url} names; {@code clock} stamps what it records. */
    static MetadataStore metadataStore(String url, Clock clock) {
        return (MetadataStore) open(url, Role.METADATA, clock);
    }

    /** Opens the object store {@code url} names; {@code clock} is for stores that need time (none yet). */
    static ObjectStore objectStore(String url, Clock clock) {
        return (ObjectStore) open(url, Role.OBJECTS, clock);
    }

    /** Opens the store for {@code url}; each case checks the role first, so the callers' casts hold. */
    private static AutoCloseable open(String url, Role role, Clock clock) {
        Matcher matcher = URL.matcher(url);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("'" + url + "' is not a store URL such as sqlite:/path or file:/path");
        }
        String scheme = matcher.group(1);
        String rest = matcher.group(2);
        return switch (scheme) {
            case "sqlite" -> {
                require(Role.METADATA, role, url);
                yield SqlMetadataStore.openSqlite(path(url, rest), clock);
            }
            case "file" -> {
                require(Role.OBJECTS, role, url);
                yield new LocalObjectStore(path(url, rest));
            }
            case "postgresql", "s3" -> throw new IllegalArgumentException(
                    "the " + scheme + " backend is not supported yet: " + url);
            default -> throw new IllegalArgumentException(
                    "unknown " + role.description + " scheme '" + scheme + "' in " + url);
        };
    }

    private static void require(Role expected, Role actual, String url) {
        if (expected != actual) {
            throw new IllegalArgumentException(url + " names " + expected.withArticle + ", not "
                    + actual.withArticle);
        }
    }

    /** The local path of {@code scheme:PATH} or {@code scheme:///PATH}; other authorities are not local. */
    private static Path path(String url, String rest) {
        String path = rest;
        if (rest.startsWith("//")) {
            path = rest.substring(2);
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException(url + " names a host; only local paths are supported");
            }
        }
        if (path.isEmpty()) {
            throw new IllegalArgumentException(url + " has no path");
        }
        try {
            return Path.of(path);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(url + " has an invalid path: " + e.getReason(), e);
        }
    }
}
