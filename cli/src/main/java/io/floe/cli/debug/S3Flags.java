package io.floe.cli.debug;

import io.floe.cli.agent.S3Options;
import io.floe.objectstore.s3.S3ObjectStoreConfig;
import io.floe.objectstore.s3.S3ObjectStoreConfig.StaticCredentials;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * How to reach an {@code s3://} object store, as {@code floe agent} takes it. Values are checked when
 * the store is built from them; a bad one is an {@link IllegalArgumentException} saying which.
 */
final class S3Flags {

    @Option(names = "--s3-endpoint", paramLabel = "URL",
            description = "S3-compatible endpoint (http:// or https://) instead of AWS.")
    String endpoint;

    @Option(names = "--s3-region", paramLabel = "REGION", defaultValue = S3ObjectStoreConfig.DEFAULT_REGION,
            description = "S3 signing region. Default: ${DEFAULT-VALUE}.")
    String region;

    @Option(names = "--s3-path-style", paramLabel = "true|false", defaultValue = "false", arity = "1",
            description = "Address buckets as ENDPOINT/BUCKET. Default: ${DEFAULT-VALUE}.")
    boolean pathStyle;

    @Option(names = "--s3-access-key-id", paramLabel = "ID",
            description = "S3 access key id. Default: the AWS SDK's default credential chain.")
    String accessKeyId;

    @Option(names = "--s3-secret-access-key", paramLabel = "SECRET",
            description = "S3 secret access key, with --s3-access-key-id.")
    String secretAccessKey;

    S3Options options() {
        Optional<URI> uri = Optional.empty();
        if (endpoint != null) {
            try {
                uri = Optional.of(new URI(endpoint));
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("invalid value '" + endpoint + "' for --s3-endpoint: "
                        + e.getReason(), e);
            }
        }
        if ((accessKeyId == null) != (secretAccessKey == null)) {
            throw new IllegalArgumentException(
                    "--s3-access-key-id and --s3-secret-access-key go together: give both, or neither");
        }
        Optional<StaticCredentials> credentials = accessKeyId == null ? Optional.empty()
                : Optional.of(new StaticCredentials(accessKeyId, secretAccessKey));
        return new S3Options(uri, region, pathStyle, credentials);
    }
}
