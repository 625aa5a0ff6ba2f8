package io.floe.objectstore.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where and how an {@link S3ObjectStore} reaches its bucket. Every component is validated when the
 * record is built, so a store never starts from a configuration it cannot use.
 *
 * <p>Start from {@link #forBucket(String)}, which fills in the defaults, and change what differs
 * with the {@code with...} methods:
 * <pre>{@code
 * S3ObjectStoreConfig.forBucket("floe-data")
 *         .withKeyPrefix("cluster-1")
 *         .withEndpoint(URI.create("http://127.0.0.1:9000"))
 *         .withPathStyleAccess(true)
 *         .withStaticCredentials("access", "secret");
 * }</pre>
 *
 * @param bucket the bucket, named by S3's rules for general purpose buckets
 * @param keyPrefix prepended to every object key with one '/'; empty for none. Leading and trailing
 *     '/' are dropped, so {@code "a/b/"} and {@code "a/b"} are the same prefix
 * @param endpoint an S3-compatible endpoint ({@code http} or {@code https}) instead of AWS's own
 * @param region the signing region; S3-compatible stores mostly accept any, AWS needs the bucket's
 * @param pathStyleAccess address the bucket as {@code endpoint/bucket/key} rather than
 *     {@code bucket.endpoint/key}; most S3-compatible stores need it
 * @param credentials a static access key; when empty the SDK's default provider chain supplies
 *     them (environment, system properties, profile files, web identity, container or instance role)
 * @param apiCallTimeout the limit for one store call including all its retries
 * @param apiCallAttemptTimeout the limit for one HTTP attempt; also the socket read and connection
 *     pool wait limit. At most {@code apiCallTimeout}
 * @param maxRetries how often the SDK repeats a failed attempt (I/O errors, 5xx, throttling), with
 *     exponential backoff and full jitter
 * @param maxConnections the HTTP connection pool's size: the most requests in flight at once
 */
public record S3ObjectStoreConfig(
        String bucket,
        String keyPrefix,
        Optional<URI> endpoint,
        String region,
        boolean pathStyleAccess,
        Optional<StaticCredentials> credentials,
        Duration apiCallTimeout,
        Duration apiCallAttemptTimeout,
        int maxRetries,
        int maxConnections) {

    public static final String DEFAULT_REGION = "us-east-1";
    public static final Duration DEFAULT_API_CALL_TIMEOUT = Duration.ofMinutes(2);
    public static final Duration DEFAULT_API_CALL_ATTEMPT_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_RETRIES = 3;
    public static final int MAX_RETRIES_LIMIT = 10;
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    public static final int MAX_CONNECTIONS_LIMIT = 1024;

    /** S3's rules for general purpose bucket names (the older, looser rules are long retired). */
    private static final Pattern BUCKET_NAME = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    private static final Pattern REGION_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    public S3ObjectStoreConfig {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(apiCallTimeout, "apiCallTimeout");
        Objects.requireNonNull(apiCallAttemptTimeout, "apiCallAttemptTimeout");
        checkBucket(bucket);
        keyPrefix = normalizedPrefix(keyPrefix);
        endpoint.ifPresent(S3ObjectStoreConfig::checkEndpoint);
        if (!REGION_NAME.matcher(region).matches()) {
            throw new IllegalArgumentException("region '" + region + "' is not a region name such as us-east-1");
        }
        checkTimeouts(apiCallTimeout, apiCallAttemptTimeout);
        if (maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
            throw new IllegalArgumentException(
                    "maxRetries " + maxRetries + " is outside [0, " + MAX_RETRIES_LIMIT + "]");
        }
        if (maxConnections < 1 || maxConnections > MAX_CONNECTIONS_LIMIT) {
            throw new IllegalArgumentException(
                    "maxConnections " + maxConnections + " is outside [1, " + MAX_CONNECTIONS_LIMIT + "]");
        }
    }

    /** The bucket on AWS in {@value #DEFAULT_REGION}, no prefix, default credentials, timeouts and limits. */
    public static S3ObjectStoreConfig forBucket(String bucket) {
        return new S3ObjectStoreConfig(
                bucket,
                "",
                Optional.empty(),
                DEFAULT_REGION,
                false,
                Optional.empty(),
                DEFAULT_API_CALL_TIMEOUT,
                DEFAULT_API_CALL_ATTEMPT_TIMEOUT,
                DEFAULT_MAX_RETRIES,
                DEFAULT_MAX_CONNECTIONS);
    }

    /**
     * The bucket and key prefix of an {@code s3://bucket/prefix} URL, with the defaults of
     * {@link #forBucket(String)} for everything else.
     */
    public static S3ObjectStoreConfig forUri(URI uri) {
        Objects.requireNonNull(uri, "uri");
        if (!"s3".equalsIgnoreCase(uri.getScheme())
                || uri.getHost() == null
                || uri.getPort() != -1
                || uri.getUserInfo() != null
                || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("'" + uri + "' is not an s3://bucket/prefix URL");
        }
        return forBucket(uri.getHost()).withKeyPrefix(uri.getPath() == null ? "" : uri.getPath());
    }

    public S3ObjectStoreConfig withKeyPrefix(String prefix) {
        return new S3ObjectStoreConfig(
                bucket,
                prefix,
                endpoint,
                region,
                pathStyleAccess,
                credentials,
                apiCallTimeout,
                apiCallAttemptTimeout,
                maxRetries,
                maxConnections);
    }

    public S3ObjectStoreConfig withEndpoint(URI uri) {
        return new S3ObjectStoreConfig(
                bucket,
                keyPrefix,
                Optional.of(uri),
                region,
                pathStyleAccess,
                credentials,
                apiCallTimeout,
                apiCallAttemptTimeout,
                maxRetries,
                maxConnections);
    }

    public S3ObjectStoreConfig withRegion(String name) {
        return new S3ObjectStoreConfig(
                bucket,
                keyPrefix,
                endpoint,
                name,
                pathStyleAccess,
                credentials,
                apiCallTimeout,
                apiCallAttemptTimeout,
                maxRetries,
                maxConnections);
    }

    public S3ObjectStoreConfig withPathStyleAccess(boolean pathStyle) {
        return new S3ObjectStoreConfig(
                bucket,
                keyPrefix,
                endpoint,
                region,
                pathStyle,
                credentials,
                apiCallTimeout,
                apiCallAttemptTimeout,
                maxRetries,
                maxConnections);
    }

    public S3ObjectStoreConfig withStaticCredentials(String accessKeyId, String secretAccessKey) {
        return new S3ObjectStoreConfig(
                bucket,
                keyPrefix,
                endpoint,
                region,
                pathStyleAccess,
                Optional.of(new StaticCredentials(accessKeyId, secretAccessKey)),
                apiCallTimeout,
                apiCallAttemptTimeout,
                maxRetries,
                maxConnections);
    }

    public S3ObjectStoreConfig withTimeouts(Duration apiCall, Duration apiCallAttempt) {
        return new S3ObjectStoreConfig(
                bucket,
                keyPrefix,
                endpoint,
                region,
                pathStyleAccess,
                credentials,
                apiCall,
                apiCallAttempt,
                maxRetries,
                maxConnections);
    }

    public S3ObjectStoreConfig withMaxRetries(int retries) {
        return new S3ObjectStoreConfig(
                bucket,
                keyPrefix,
                endpoint,
                region,
                pathStyleAccess,
                credentials,
                apiCallTimeout,
                apiCallAttemptTimeout,
                retries,
                maxConnections);
    }

    public S3ObjectStoreConfig withMaxConnections(int connections) {
        return new S3ObjectStoreConfig(
                bucket,
                keyPrefix,
                endpoint,
                region,
                pathStyleAccess,
                credentials,
                apiCallTimeout,
                apiCallAttemptTimeout,
                maxRetries,
                connections);
    }

    /** {@code s3://bucket/prefix at http://endpoint}, or {@code ... in region r} on AWS itself. */
    public String describe() {
        String location = "s3://" + bucket + (keyPrefix.isEmpty() ? "" : "/" + keyPrefix);
        return location + endpoint.map(uri -> " at " + uri).orElse(" in AWS region " + region);
    }

    private static void checkBucket(String bucket) {
        if (!BUCKET_NAME.matcher(bucket).matches() || bucket.contains("..")) {
            throw new IllegalArgumentException("bucket name '" + bucket + "' is not a valid S3 bucket name: 3 to 63 "
                    + "lowercase letters, digits, '.' and '-', starting and ending with a letter or digit");
        }
    }

    private static String normalizedPrefix(String prefix) {
        int start = 0;
        int end = prefix.length();
        while (start < end && prefix.charAt(start) == '/') {
            start++;
        }
        while (end > start && prefix.charAt(end - 1) == '/') {
            end--;
        }
        String trimmed = prefix.substring(start, end);
        if (trimmed.contains("//") || trimmed.contains("..") || trimmed.contains("\\")) {
            throw new IllegalArgumentException("key prefix '" + prefix
                    + "' has an empty name ('//'), '..' or '\\'; use '/' separated names such as floe/cluster-1");
        }
        return trimmed;
    }

    private static void checkEndpoint(URI uri) {
        String scheme = uri.getScheme();
        if (scheme == null
                || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("endpoint '" + uri
                    + "' is not an http:// or https:// URL with a host, such as http://127.0.0.1:9000");
        }
        if (uri.getUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException(
                    "endpoint '" + uri
                            + "' has user info, a query or a fragment; give credentials separately and only scheme, host and port");
        }
    }

    private static void checkTimeouts(Duration apiCall, Duration apiCallAttempt) {
        if (apiCall.isNegative() || apiCall.isZero() || apiCallAttempt.isNegative() || apiCallAttempt.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive: apiCallTimeout " + apiCall
                    + ", apiCallAttemptTimeout " + apiCallAttempt);
        }
        if (apiCallAttempt.compareTo(apiCall) > 0) {
            throw new IllegalArgumentException("apiCallAttemptTimeout " + apiCallAttempt + " exceeds apiCallTimeout "
                    + apiCall + ": no attempt could use its full time");
        }
    }

    /** An access key pair. Its {@link #toString()} hides the secret, so configurations can be logged. */
    public record StaticCredentials(String accessKeyId, String secretAccessKey) {

        public StaticCredentials {
            Objects.requireNonNull(accessKeyId, "accessKeyId");
            Objects.requireNonNull(secretAccessKey, "secretAccessKey");
            if (accessKeyId.isBlank() || secretAccessKey.isBlank()) {
                throw new IllegalArgumentException("static credentials need a non-blank access key id and secret");
            }
        }

        @Override
        public String toString() {
            return "StaticCredentials[accessKeyId=" + accessKeyId + ", secretAccessKey=****]";
        }
    }
}
