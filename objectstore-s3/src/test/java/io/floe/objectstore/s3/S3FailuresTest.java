package io.floe.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStoreException;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class S3FailuresTest {

    private final S3Failures failures = new S3Failures("s3://floe-data/p at http://127.0.0.1:9000");

    @Test
    void serverErrorsThrottlingAndTimeoutsAreRetriable() {
        assertThat(S3Failures.retriable(service(500, "InternalError"))).isTrue();
        assertThat(S3Failures.retriable(service(503, "SlowDown"))).isTrue();
        assertThat(S3Failures.retriable(service(503, ""))).isTrue();
        assertThat(S3Failures.retriable(service(429, ""))).isTrue();
        assertThat(S3Failures.retriable(service(400, "RequestTimeout"))).isTrue();
        assertThat(S3Failures.retriable(service(409, "ConditionalRequestConflict")))
                .isTrue();
    }

    @Test
    void clientSideErrorsAreRetriable() {
        assertThat(S3Failures.retriable(SdkClientException.create(
                        "Unable to execute HTTP request", new ConnectException("Connection refused"))))
                .isTrue();
        assertThat(S3Failures.retriable(ApiCallTimeoutException.create(1000))).isTrue();
    }

    @Test
    void errorsThatNeedAnOperatorAreNot() {
        assertThat(S3Failures.retriable(service(403, "AccessDenied"))).isFalse();
        assertThat(S3Failures.retriable(service(403, "SignatureDoesNotMatch"))).isFalse();
        assertThat(S3Failures.retriable(missingBucket())).isFalse();
        assertThat(S3Failures.retriable(service(400, "InvalidArgument"))).isFalse();
        assertThat(S3Failures.retriable(service(412, "PreconditionFailed"))).isFalse();
    }

    @Test
    void tellsAMissingBucketFromAMissingObject() {
        assertThat(S3Failures.isMissingBucket(missingBucket())).isTrue();
        assertThat(S3Failures.isMissingBucket(service(404, "NoSuchBucket"))).isTrue();
        assertThat(S3Failures.isMissingObject(missingBucket())).isFalse();
        assertThat(S3Failures.isMissingObject(service(404, "NoSuchBucket"))).isFalse();
        assertThat(S3Failures.isMissingObject(
                        NoSuchKeyException.builder().statusCode(404).build()))
                .isTrue();
        assertThat(S3Failures.isMissingObject(service(404, "")))
                .as("HEAD answers 404 without a code")
                .isTrue();
        assertThat(S3Failures.isMissingObject(service(403, "AccessDenied"))).isFalse();
    }

    @Test
    void messagesNameOperationKeyLocationAndStatus() {
        ObjectStoreException slowDown =
                failures.of("put", new ObjectKey("segments/ab/1.seg"), service(503, "SlowDown"));
        ObjectStoreException denied = failures.ofList("segments/", service(403, "AccessDenied"));
        ObjectStoreException noBucket = failures.of("get", new ObjectKey("k"), missingBucket());
        ObjectStoreException broken = failures.of("get", new ObjectKey("k"), new IOException("Connection reset"));

        assertThat(slowDown)
                .hasMessage("put object segments/ab/1.seg in s3://floe-data/p at http://127.0.0.1:9000"
                        + " failed: HTTP 503 SlowDown: message for SlowDown (request id req-1)");
        assertThat(slowDown.retriable()).isTrue();
        assertThat(denied)
                .hasMessage("list prefix 'segments/' in s3://floe-data/p at http://127.0.0.1:9000 failed:"
                        + " HTTP 403 AccessDenied: message for AccessDenied (request id req-1): access denied, check the"
                        + " credentials and the bucket policy");
        assertThat(denied.retriable()).isFalse();
        assertThat(noBucket).hasMessageEndingWith(": the bucket does not exist");
        assertThat(broken)
                .hasMessageContaining("get object k in s3://floe-data/p")
                .hasMessageContaining("Connection reset");
        assertThat(broken.retriable()).isTrue();
    }

    private static SdkException service(int status, String code) {
        return S3Exception.builder()
                .statusCode(status)
                .requestId("req-1")
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code.isEmpty() ? null : code)
                        .errorMessage(code.isEmpty() ? null : "message for " + code)
                        .build())
                .build();
    }

    private static SdkException missingBucket() {
        return NoSuchBucketException.builder().statusCode(404).build();
    }
}
