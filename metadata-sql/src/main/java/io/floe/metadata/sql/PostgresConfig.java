package io.floe.metadata.sql;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how a store reaches its PostgreSQL database: the JDBC URL, the credentials ({@code null}
 * to take them from the URL's parameters), the size of the store's connection pool and its timeouts.
 * {@link #toString()} never shows the password.
 *
 * @param poolSize the most connections the store holds open, for commits and reads together
 * @param connectionTimeout how long opening a connection, or waiting for a free one, may take
 * @param socketTimeout how long one statement may wait for the server's answer before the
 *     connection counts as lost (a commit's outcome is then unknown)
 */
public record PostgresConfig(
        String jdbcUrl,
        String user,
        String password,
        int poolSize,
        Duration connectionTimeout,
        Duration socketTimeout) {

    public static final int DEFAULT_POOL_SIZE = 10;
    public static final int POOL_SIZE_MAX = 200;
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(60);
    /** HikariCP's floor for connection timeouts. */
    public static final Duration TIMEOUT_MIN = Duration.ofMillis(250);

    private static final String JDBC_PREFIX = "jdbc:postgresql:";
    private static final int DEFAULT_PORT = 5432;

    public PostgresConfig {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith(JDBC_PREFIX + "//")) {
            throw new IllegalArgumentException("'" + redact(jdbcUrl) + "' is not a PostgreSQL JDBC URL such as "
                    + JDBC_PREFIX + "//HOST:PORT/DATABASE");
        }
        if (poolSize < 1 || poolSize > POOL_SIZE_MAX) {
            throw new IllegalArgumentException(
                    "PostgreSQL pool size must be in [1, " + POOL_SIZE_MAX + "], got " + poolSize);
        }
        requireTimeout("connection timeout", connectionTimeout);
        requireTimeout("socket timeout", socketTimeout);
    }

    /**
     * Reads {@code postgresql://USER:PASSWORD@HOST:PORT/DATABASE?PARAMS} (the CLI's form; user,
     * password, port and parameters are optional, {@code postgres://} works too, user and password
     * are percent-decoded) or {@code jdbc:postgresql://...}, with the default pool size and timeouts.
     */
    public static PostgresConfig parse(String url) {
        return of(url, null, null);
    }

    /**
     * Like {@link #parse}, with {@code user} and {@code password} replacing those in the URL when
     * they are not {@code null}.
     */
    public static PostgresConfig of(String url, String user, String password) {
        Objects.requireNonNull(url, "url");
        if (url.startsWith(JDBC_PREFIX)) {
            return new PostgresConfig(
                    url, user, password, DEFAULT_POOL_SIZE, DEFAULT_CONNECTION_TIMEOUT, DEFAULT_SOCKET_TIMEOUT);
        }
        URI uri = uri(url);
        String[] credentials = credentials(uri);
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        int port = uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort();
        String jdbcUrl = JDBC_PREFIX + "//" + uri.getHost() + ":" + port + path + query;
        return new PostgresConfig(
                jdbcUrl,
                user != null ? user : credentials[0],
                password != null ? password : credentials[1],
                DEFAULT_POOL_SIZE,
                DEFAULT_CONNECTION_TIMEOUT,
                DEFAULT_SOCKET_TIMEOUT);
    }

    public PostgresConfig withPoolSize(int size) {
        return new PostgresConfig(jdbcUrl, user, password, size, connectionTimeout, socketTimeout);
    }

    public PostgresConfig withConnectionTimeout(Duration timeout) {
        return new PostgresConfig(jdbcUrl, user, password, poolSize, timeout, socketTimeout);
    }

    public PostgresConfig withSocketTimeout(Duration timeout) {
        return new PostgresConfig(jdbcUrl, user, password, poolSize, connectionTimeout, timeout);
    }

    /** {@code postgresql://HOST:PORT/DATABASE}: the database, without credentials or parameters. */
    public String location() {
        return redact(jdbcUrl.substring("jdbc:".length()));
    }

    @Override
    public String toString() {
        return "PostgresConfig[" + location() + ", user=" + user + ", password=" + (password == null ? "none" : "***")
                + ", poolSize=" + poolSize + ", connectionTimeout=" + connectionTimeout
                + ", socketTimeout=" + socketTimeout + "]";
    }

    private static URI uri(String url) {
        if (!url.startsWith("postgresql://") && !url.startsWith("postgres://")) {
            throw new IllegalArgumentException("'" + redact(url) + "' is not a PostgreSQL URL such as"
                    + " postgresql://USER:PASSWORD@HOST:PORT/DATABASE or jdbc:postgresql://HOST:PORT/DATABASE");
        }
        try {
            URI uri = new URI(url);
            if (uri.getHost() == null) {
                throw new IllegalArgumentException(
                        "'" + redact(url) + "' names no host (for several hosts," + " use a jdbc:postgresql:// URL)");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    "'" + redact(url) + "' is not a valid PostgreSQL URL: " + e.getReason(), e);
        }
    }

    /** User and password of the URL's user info, percent-decoded; each {@code null} when absent. */
    private static String[] credentials(URI uri) {
        String userInfo = uri.getRawUserInfo();
        if (userInfo == null || userInfo.isEmpty()) {
            return new String[] {null, null};
        }
        int colon = userInfo.indexOf(':');
        String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
        String password = colon < 0 ? null : userInfo.substring(colon + 1);
        return new String[] {decode(user), password == null ? null : decode(password)};
    }

    private static String decode(String value) {
        // URLDecoder turns '+' into a space, which URL user info does not mean.
        return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** {@code url} without user info and parameters, which may hold credentials. */
    private static String redact(String url) {
        String redacted = url;
        int query = redacted.indexOf('?');
        if (query >= 0) {
            redacted = redacted.substring(0, query);
        }
        int authority = redacted.indexOf("//");
        int at = redacted.lastIndexOf('@');
        if (authority >= 0 && at > authority) {
            redacted = redacted.substring(0, authority + 2) + redacted.substring(at + 1);
        }
        return redacted;
    }

    private static void requireTimeout(String name, Duration timeout) {
        Objects.requireNonNull(timeout, name);
        if (timeout.compareTo(TIMEOUT_MIN) < 0) {
            throw new IllegalArgumentException("PostgreSQL " + name + " must be at least " + TIMEOUT_MIN.toMillis()
                    + " ms, got " + timeout.toMillis() + " ms");
        }
    }
}
