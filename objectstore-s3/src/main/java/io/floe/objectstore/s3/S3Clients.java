package io.floe.objectstore.s3;

import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Builds the SDK client of a store from its configuration: a sync {@link S3Client} on Apache
 * HttpClient 5 with a bounded connection pool, the configured timeouts, and the SDK's standard retry
 * strategy.
 *
 * <p>Retries and their backoff run inside the SDK, on its own clock and random jitter: they are not
 * driven by Floe's injectable clock. They happen below the {@code ObjectStore} seam, so the
 * simulation tests, which run against in-process stores, never see them.
 */
final class S3Clients {

    /** Backoff before retrying an I/O error or a 5xx: full jitter, doubling from this base. */
    static final Duration RETRY_BASE_DELAY = Duration.ofMillis(100);
    /** Throttling (SlowDown, 429) backs off from a larger base so the store can recover. */
    static final Duration THROTTLED_RETRY_BASE_DELAY = Duration.ofSeconds(1);

    static final Duration RETRY_MAX_DELAY = Duration.ofSeconds(20);
    /** Opening a TCP connection takes far less than an attempt; fail fast on an unreachable endpoint. */
    static final Duration CONNECT_TIMEOUT_MAX = Duration.ofSeconds(10);

    private S3Clients() {}

    static AwsCredentialsProvider credentialsProvider(S3ObjectStoreConfig config) {
        return config.credentials()
                .<AwsCredentialsProvider>map(c -> StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(c.accessKeyId(), c.secretAccessKey())))
                .orElseGet(() -> DefaultCredentialsProvider.builder().build());
    }

    /** The caller owns {@code credentials}: closing the client does not close them. */
    static S3Client create(S3ObjectStoreConfig config, AwsCredentialsProvider credentials) {
        Duration attempt = config.apiCallAttemptTimeout();
        Duration connect = attempt.compareTo(CONNECT_TIMEOUT_MAX) < 0 ? attempt : CONNECT_TIMEOUT_MAX;
        S3ClientBuilder builder = S3Client.builder()
                .region(Region.of(config.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(config.pathStyleAccess())
                .httpClientBuilder(Apache5HttpClient.builder()
                        .maxConnections(config.maxConnections())
                        .connectionTimeout(connect)
                        .connectionAcquisitionTimeout(attempt)
                        .socketTimeout(attempt))
                .overrideConfiguration(o -> o.apiCallTimeout(config.apiCallTimeout())
                        .apiCallAttemptTimeout(attempt)
                        .retryStrategy(retryStrategy(config.maxRetries())));
        config.endpoint().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    /** The SDK's standard strategy (AWS's retriable errors, a retry quota) with our attempt count. */
    static RetryStrategy retryStrategy(int maxRetries) {
        return AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .maxAttempts(maxRetries + 1)
                .backoffStrategy(BackoffStrategy.exponentialDelay(RETRY_BASE_DELAY, RETRY_MAX_DELAY))
                .throttlingBackoffStrategy(
                        BackoffStrategy.exponentialDelay(THROTTLED_RETRY_BASE_DELAY, RETRY_MAX_DELAY))
                .build();
    }
}
