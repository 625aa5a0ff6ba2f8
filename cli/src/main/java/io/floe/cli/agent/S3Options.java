package io.floe.cli.agent;

import io.floe.objectstore.s3.S3ObjectStoreConfig;
import io.floe.objectstore.s3.S3ObjectStoreConfig.StaticCredentials;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * How an {@code s3://BUCKET/PREFIX} object store is reached, beyond what its URL says. Unused for
 * other object stores. {@link #toString()} never shows the secret.
 *
 * @param endpoint an S3-compatible endpoint instead of AWS's own
 * @param region the signing region
 * @param pathStyleAccess address buckets as {@code endpoint/bucket} rather than {@code bucket.endpoint}
 * @param credentials a static access key; when empty the AWS SDK's default credential chain
 */
public record S3Options(
        Optional<URI> endpoint, String region, boolean pathStyleAccess, Optional<StaticCredentials> credentials) {

    /** AWS itself in the default region, with the default credential chain. */
    public static final S3Options DEFAULTS =
            new S3Options(Optional.empty(), S3ObjectStoreConfig.DEFAULT_REGION, false, Optional.empty());

    public S3Options {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(credentials, "credentials");
    }

    /** {@code base} (from the URL) with these options; its constructor validates them. */
    S3ObjectStoreConfig applyTo(S3ObjectStoreConfig base) {
        S3ObjectStoreConfig config = base.withRegion(region).withPathStyleAccess(pathStyleAccess);
        if (endpoint.isPresent()) {
            config = config.withEndpoint(endpoint.get());
        }
        if (credentials.isPresent()) {
            config = config.withStaticCredentials(
                    credentials.get().accessKeyId(), credentials.get().secretAccessKey());
        }
        return config;
    }
}
