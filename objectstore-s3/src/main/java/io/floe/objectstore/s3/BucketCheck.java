package io.floe.objectstore.s3;

import io.floe.core.object.ObjectStoreException;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The start-up checks of {@link S3ObjectStore#open}: credentials can be found, the bucket exists and
 * they may use it. Each failure says what is wrong in an operator's terms, with bucket and endpoint.
 */
final class BucketCheck {

    private static final int HTTP_MOVED_PERMANENTLY = 301;

    private BucketCheck() {}

    /** Resolves the default chain's credentials once, so a missing setup fails here and not on the first put. */
    static void resolveCredentials(S3ObjectStoreConfig config, AwsCredentialsProvider credentials) {
        if (config.credentials().isPresent()) {
            return;
        }
        try {
            credentials.resolveCredentials();
        } catch (SdkException e) {
            throw new ObjectStoreException(
                    "no credentials for " + config.describe() + ": configure an access key "
                            + "id and secret for the store, or provide them to the AWS SDK's default chain (environment "
                            + "variables AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, web identity, a container "
                            + "or instance role): " + e.getMessage(),
                    false,
                    e);
        }
    }

    /** Sends HeadBucket, which needs no object and the same permission as listing. */
    static void headBucket(S3ObjectStoreConfig config, S3Client client) {
        try {
            client.headBucket(b -> b.bucket(config.bucket()));
        } catch (SdkException e) {
            throw failure(config, e);
        }
    }

    static ObjectStoreException failure(S3ObjectStoreConfig config, SdkException e) {
        String bucket = config.bucket();
        String where = config.endpoint().map(uri -> "at endpoint " + uri).orElse("in AWS region " + config.region());
        String detail = S3Failures.detail(e);
        if (!(e instanceof SdkServiceException)) {
            return new ObjectStoreException(
                    "cannot reach the object store " + where + " to check bucket " + bucket + ": " + detail, true, e);
        }
        int status = S3Failures.status(e);
        if (status == S3Failures.HTTP_NOT_FOUND) {
            return new ObjectStoreException(
                    "bucket " + bucket + " does not exist " + where + ": create it or correct the bucket name ("
                            + detail + ")",
                    false,
                    e);
        }
        if (status == S3Failures.HTTP_FORBIDDEN) {
            return new ObjectStoreException(
                    "access denied to bucket " + bucket + " " + where + " for "
                            + credentialsDescription(config)
                            + ": check the access key, the secret and the bucket policy ("
                            + detail + ")",
                    false,
                    e);
        }
        if (status == HTTP_MOVED_PERMANENTLY) {
            return new ObjectStoreException(
                    "bucket " + bucket + " is not in region " + config.region() + " but in " + bucketRegion(e)
                            + ": configure that region (" + detail + ")",
                    false,
                    e);
        }
        return new ObjectStoreException(
                "checking bucket " + bucket + " " + where + " failed: " + detail, S3Failures.retriable(e), e);
    }

    private static String credentialsDescription(S3ObjectStoreConfig config) {
        return config.credentials()
                .map(c -> "access key id " + c.accessKeyId())
                .orElse("the credentials of the AWS SDK's default chain");
    }

    private static String bucketRegion(SdkException e) {
        if (e instanceof AwsServiceException aws
                && aws.awsErrorDetails() != null
                && aws.awsErrorDetails().sdkHttpResponse() != null) {
            return aws.awsErrorDetails()
                    .sdkHttpResponse()
                    .firstMatchingHeader("x-amz-bucket-region")
                    .orElse("another region");
        }
        return "another region";
    }
}
