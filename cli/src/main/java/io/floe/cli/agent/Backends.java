package io.floe.cli.agent;

import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.metadata.sql.PostgresConfig;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.objectstore.s3.S3ObjectStore;
import io.floe.objectstore.s3.S3ObjectStoreConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens the stores that URLs name. This is the one place that maps a URL scheme to an
 * implementation: adding a backend is adding a case to {@link #opener}.
 *
 * <ul>
 *   <li>{@code sqlite:PATH} — the embedded SQLite metadata store, for one agent</li>
 *   <li>{@code postgresql://USER:PASSWORD@HOST:PORT/DATABASE} — the PostgreSQL metadata store, which
 *       many agents share ({@code postgres://} works too)</li>
 *   <li>{@code file:PATH} — the local-directory object store ({@code file:///abs/path} works too)</li>
 *   <li>{@code s3://BUCKET/PREFIX} — an S3 bucket (AWS or S3-compatible), reached as
 *       {@link S3Options} say</li>
 * </ul>
 *
 * <p>A URL is parsed and validated completely before anything opens, so {@link #checkMetadataUrl}
 * and {@link #checkObjectsUrl} reject a bad setting with the same message opening it would give.
 * Messages never show a PostgreSQL password: see {@link #redact}.
 */
public final class Backends {

    private static final Pattern URL = Pattern.compile("([a-z][a-z0-9+.-]*):(.*)", Pattern.DOTALL);
    /** The password in {@code scheme://user:password@host}; group 1 is what comes before it. */
    private static final Pattern PASSWORD = Pattern.compile("^([a-z][a-z0-9+.-]*://[^/@:?#]*:)[^/@?#]*@");

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

    /** Opens a store whose URL is already validated; {@code clock} stamps what it records. */
    @FunctionalInterface
    private interface Opener {
        AutoCloseable open(Clock clock);
    }

    /** Whether opening may create an empty store: the agent's may, a tool that only reads must not. */
    private enum Mode {
        CREATE,
        EXISTING
    }

    private Backends() {}

    /**
     * Opens the metadata store {@code url} names; {@code clock} stamps what it records.
     *
     * @throws IllegalArgumentException when {@code url} is not a metadata store URL
     */
    public static MetadataStore metadataStore(String url, Clock clock) {
        return (MetadataStore)
                opener(url, Role.METADATA, S3Options.DEFAULTS, Mode.CREATE).open(clock);
    }

    /**
     * Opens the metadata store {@code url} names, which must exist: an embedded database that is not
     * there is a {@link MetadataStoreException} instead of a new empty store.
     *
     * @throws IllegalArgumentException when {@code url} is not a metadata store URL
     */
    public static MetadataStore existingMetadataStore(String url, Clock clock) {
        return (MetadataStore)
                opener(url, Role.METADATA, S3Options.DEFAULTS, Mode.EXISTING).open(clock);
    }

    /**
     * Opens the object store {@code url} names; {@code s3} applies to {@code s3://} URLs only, and
     * {@code clock} to stores that need time (none yet).
     *
     * @throws IllegalArgumentException when {@code url} or {@code s3} cannot name an object store
     */
    public static ObjectStore objectStore(String url, S3Options s3, Clock clock) {
        return (ObjectStore) opener(url, Role.OBJECTS, s3, Mode.CREATE).open(clock);
    }

    /**
     * Opens the object store {@code url} names, which must exist: a local directory that is not there
     * is an {@link ObjectStoreException} instead of a new empty store (an S3 bucket is never created).
     */
    public static ObjectStore existingObjectStore(String url, S3Options s3, Clock clock) {
        return (ObjectStore) opener(url, Role.OBJECTS, s3, Mode.EXISTING).open(clock);
    }

    /** The database of a metadata store URL as JDBC sees it: where Tableflow's Iceberg catalog lives too. */
    public record Database(String jdbcUrl, String user, String password) {}

    /** The database {@code metadataUrl} (validated) names. */
    public static Database database(String metadataUrl) {
        Matcher matcher = URL.matcher(metadataUrl);
        if (matcher.matches() && matcher.group(1).equals("sqlite")) {
            return new Database(
                    "jdbc:sqlite:" + path(metadataUrl, matcher.group(2)).toAbsolutePath(), null, null);
        }
        if (matcher.matches()
                && (matcher.group(1).equals("postgresql") || matcher.group(1).equals("postgres"))) {
            PostgresConfig config = PostgresConfig.parse(metadataUrl);
            return new Database(config.jdbcUrl(), config.user(), config.password());
        }
        throw new IllegalArgumentException("'" + redact(metadataUrl) + "' is not a metadata store URL");
    }

    /**
     * The location of the object store {@code objectsUrl} (validated) names, as Iceberg and other
     * engines write it: {@code file:/absolute/dir} or {@code s3://bucket/prefix}, without a trailing slash.
     */
    public static String location(String objectsUrl) {
        Matcher matcher = URL.matcher(objectsUrl);
        if (matcher.matches() && matcher.group(1).equals("file")) {
            return "file:" + path(objectsUrl, matcher.group(2)).toAbsolutePath().normalize();
        }
        if (matcher.matches() && matcher.group(1).equals("s3")) {
            String location = objectsUrl;
            while (location.endsWith("/")) {
                location = location.substring(0, location.length() - 1);
            }
            return location;
        }
        throw new IllegalArgumentException("'" + redact(objectsUrl) + "' is not an object store URL");
    }

    /** Validates a metadata store URL without opening anything; the exception says what is wrong. */
    static void checkMetadataUrl(String url) {
        opener(url, Role.METADATA, S3Options.DEFAULTS, Mode.CREATE);
    }

    /** Validates an object store URL and its S3 options without opening anything. */
    static void checkObjectsUrl(String url, S3Options s3) {
        opener(url, Role.OBJECTS, s3, Mode.CREATE);
    }

    /**
     * {@code url} fit for logs and messages: the password of {@code postgresql://user:password@host}
     * becomes {@code ****} and query parameters, which may carry one too, become {@code ?...}.
     */
    public static String redact(String url) {
        String redacted = PASSWORD.matcher(url).replaceFirst("$1****@");
        int query = redacted.indexOf('?');
        return query < 0 ? redacted : redacted.substring(0, query) + "?...";
    }

    /**
     * Parses and validates {@code url} for {@code role} and returns how to open its store; each case
     * checks the role first, so the callers' casts hold.
     */
    private static Opener opener(String url, Role role, S3Options s3, Mode mode) {
        Matcher matcher = URL.matcher(url);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("'" + redact(url) + "' is not a store URL such as "
                    + (role == Role.METADATA
                            ? "sqlite:/path or postgresql://HOST/DATABASE"
                            : "file:/path or s3://BUCKET"));
        }
        String scheme = matcher.group(1);
        String rest = matcher.group(2);
        return switch (scheme) {
            case "sqlite" -> {
                require(Role.METADATA, role, url);
                Path path = path(url, rest);
                yield clock -> {
                    if (mode == Mode.EXISTING && !Files.isRegularFile(path)) {
                        throw new MetadataStoreException(
                                "no metadata store at " + path.toAbsolutePath() + ": the file does not exist",
                                false,
                                null);
                    }
                    return SqlMetadataStore.openSqlite(path, clock);
                };
            }
            case "postgresql", "postgres" -> {
                require(Role.METADATA, role, url);
                PostgresConfig config = PostgresConfig.parse(url);
                yield clock -> SqlMetadataStore.openPostgres(config, clock);
            }
            case "file" -> {
                require(Role.OBJECTS, role, url);
                Path path = path(url, rest);
                yield clock -> {
                    if (mode == Mode.EXISTING && !Files.isDirectory(path)) {
                        throw new ObjectStoreException(
                                "no object store at " + path.toAbsolutePath() + ": the directory does not exist",
                                false);
                    }
                    return new LocalObjectStore(path);
                };
            }
            case "s3" -> {
                require(Role.OBJECTS, role, url);
                S3ObjectStoreConfig config = s3.applyTo(S3ObjectStoreConfig.forUri(uri(url)));
                yield clock -> S3ObjectStore.open(config);
            }
            default ->
                throw new IllegalArgumentException(
                        "unknown " + role.description + " scheme '" + scheme + "' in " + redact(url));
        };
    }

    private static void require(Role expected, Role actual, String url) {
        if (expected != actual) {
            throw new IllegalArgumentException(
                    redact(url) + " names " + expected.withArticle + ", not " + actual.withArticle);
        }
    }

    private static URI uri(String url) {
        try {
            return new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'" + redact(url) + "' is not a valid URL: " + e.getReason(), e);
        }
    }

    /** The local path of {@code scheme:PATH} or {@code scheme:///PATH}; other authorities are not local. */
    private static Path path(String url, String rest) {
        String path = rest;
        if (rest.startsWith("//")) {
            path = rest.substring(2);
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException(redact(url) + " names a host; only local paths are supported");
            }
        }
        if (path.isEmpty()) {
            throw new IllegalArgumentException(redact(url) + " has no path");
        }
        try {
            return Path.of(path);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(redact(url) + " has an invalid path: " + e.getReason(), e);
        }
    }
}
