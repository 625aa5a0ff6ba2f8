package io.floe.objectstore.s3;

import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStoreException;
import java.io.IOException;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;

/**
 * Turns SDK exceptions into {@link ObjectStoreException}s whose messages name the operation, the
 * key, the bucket and endpoint, and the HTTP status, and whose {@code retriable} flag says whether
 * the same call may pass later.
 *
 * <p>Retriable: anything on the client side (I/O errors, timeouts: the request may not have reached
 * the store, or its answer was lost), 5xx, throttling (429, 503 SlowDown), 408 and S3's 400
 * RequestTimeout, and 409 (a conflicting concurrent request, which S3 asks callers to retry). Not
 * retriable: the other 4xx, such as 403 (credentials or policy) and 404 for a missing bucket, which
 * need an operator. By the time one of these reaches the caller the SDK has already used its own
 * retries.
 */
final class S3Failures {

    static final int HTTP_FORBIDDEN = 403;
    static final int HTTP_NOT_FOUND = 404;
    static final int HTTP_PRECONDITION_FAILED = 412;
    static final int HTTP_RANGE_NOT_SATISFIABLE = 416;

    /** 4xx error codes that S3 documents as transient. */
    private static final Set<String> RETRIABLE_CODES =
            Set.of("RequestTimeout", "ExpiredToken", "OperationAborted", "SlowDown", "InternalError");

    private final String location;

    /** {@code location} is the store's description, e.g. {@code s3://bucket/prefix at http://host:port}. */
    S3Failures(String location) {
        this.location = location;
    }

    /** An operation on one object failed in the SDK. */
    ObjectStoreException of(String operation, ObjectKey key, SdkException e) {
        return new ObjectStoreException(
                operation + " object " + key + " in " + location + " failed: " + detail(e) + hint(e), retriable(e), e);
    }

    /** Reading a response body failed: the connection broke, so the same read may pass. */
    ObjectStoreException of(String operation, ObjectKey key, IOException e) {
        return new ObjectStoreException(
                operation + " object " + key + " in " + location + " failed while reading: " + e, true, e);
    }

    /** Listing a prefix failed in the SDK. */
    ObjectStoreException ofList(String prefix, SdkException e) {
        return new ObjectStoreException(
                "list prefix '" + prefix + "' in " + location + " failed: " + detail(e) + hint(e), retriable(e), e);
    }

    static boolean retriable(SdkException e) {
        if (!(e instanceof SdkServiceException service)) {
            return true;
        }
        int status = service.statusCode();
        return service.isThrottlingException()
                || status >= 500
                || status == 408
                || status == 409
                || status == 429
                || RETRIABLE_CODES.contains(errorCode(e));
    }

    /** The HTTP status of a service error, or 0 when no response arrived. */
    static int status(SdkException e) {
        return e instanceof SdkServiceException service ? service.statusCode() : 0;
    }

    /** S3's error code ("NoSuchKey", "AccessDenied", ...), or "" when there is none (HEAD has no body). */
    static String errorCode(SdkException e) {
        if (e instanceof AwsServiceException aws
                && aws.awsErrorDetails() != null
                && aws.awsErrorDetails().errorCode() != null) {
            return aws.awsErrorDetails().errorCode();
        }
        return "";
    }

    static boolean isMissingBucket(SdkException e) {
        return e instanceof NoSuchBucketException
                || (status(e) == HTTP_NOT_FOUND && errorCode(e).equals("NoSuchBucket"));
    }

    /** A 404 that is not about the bucket: the object is not there. */
    static boolean isMissingObject(SdkException e) {
        return status(e) == HTTP_NOT_FOUND && !isMissingBucket(e);
    }

    /** "HTTP 403 AccessDenied: Access Denied (request id 4442587FB7D0A2F9)", or the client-side error. */
    static String detail(SdkException e) {
        if (!(e instanceof SdkServiceException service)) {
            return e.getMessage() + (e.getCause() == null ? "" : " (" + e.getCause() + ")");
        }
        StringBuilder detail = new StringBuilder("HTTP ").append(service.statusCode());
        String code = errorCode(e);
        if (!code.isEmpty()) {
            detail.append(' ').append(code);
        }
        String message = e instanceof AwsServiceException aws ? errorMessage(aws.awsErrorDetails()) : null;
        if (message != null && !message.isBlank()) {
            detail.append(": ").append(message);
        }
        if (service.requestId() != null) {
            detail.append(" (request id ").append(service.requestId()).append(')');
        }
        return detail.toString();
    }

    /** What an operator should look at for errors that need one; empty for the others. */
    static String hint(SdkException e) {
        if (isMissingBucket(e)) {
            return ": the bucket does not exist";
        }
        if (status(e) == HTTP_FORBIDDEN) {
            return ": access denied, check the credentials and the bucket policy";
        }
        return "";
    }

    private static String errorMessage(AwsErrorDetails details) {
        return details == null ? null : details.errorMessage();
    }
}
