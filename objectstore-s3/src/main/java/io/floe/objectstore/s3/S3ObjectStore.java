package io.floe.objectstore.s3;

import io.floe.core.concurrency.Concurrency;
import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectAlreadyExistsException;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectNotFoundException;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An {@link ObjectStore} in an S3 bucket (AWS or an S3-compatible store), under an optional key
 * prefix. Open one with {@link #open(S3ObjectStoreConfig)}, which checks that the bucket is there.
 *
 * <p>Puts are create-only through {@code If-None-Match: *}: a store that already holds the key
 * answers 412. An SDK retry of a put whose first response was lost also gets 412, for the object that
 * first attempt stored. So after a 412 the store reads the object's metadata and compares it with the
 * {@link WriteStamp} the put sent: the put's own write id (with matching size and CRC32C) means the
 * put succeeded; anything else means the key was taken. Stores that answer conditional writes with
 * another status, or ignore {@code If-None-Match}, do not give this guarantee.
 *
 * <p>Reads use {@code Range: bytes=a-b} and check the size the store reports, so a range past the end
 * fails instead of coming back short. GET responses from some stores carry no checksum: callers verify
 * Floe's own checksums, as the {@link ObjectStore} contract says.
 *
 * <p>Thread-safe: the SDK client is, and the store keeps no other mutable state.
 */
public final class S3ObjectStore implements ObjectStore {

    private static final Logger LOGGER = LoggerFactory.getLogger(S3ObjectStore.class);
    /** The most keys one list request asks for; S3's own maximum. */
    static final int LIST_PAGE_SIZE_MAX = 1000;

    private final S3ObjectStoreConfig config;
    private final AwsCredentialsProvider credentials;
    private final S3Client client;
    private final KeyPrefix keys;
    private final S3Failures failures;
    private final Supplier<UUID> writeIds;
    private final int listPageSize;

    private S3ObjectStore(
            S3ObjectStoreConfig config,
            AwsCredentialsProvider credentials,
            S3Client client,
            Supplier<UUID> writeIds,
            int listPageSize) {
        this.config = config;
        this.credentials = credentials;
        this.client = client;
        this.keys = new KeyPrefix(config.keyPrefix());
        this.failures = new S3Failures(config.describe());
        this.writeIds = writeIds;
        this.listPageSize = listPageSize;
    }

    /**
     * Opens the store and checks that its bucket exists and these credentials may use it.
     *
     * @throws ObjectStoreException naming the bucket and endpoint when the bucket is missing, access
     *     is denied or no credentials are found (not retriable), or when the endpoint cannot be reached
     *     (retriable)
     */
    public static S3ObjectStore open(S3ObjectStoreConfig config) {
        return open(config, Concurrency.threads()::randomUuid, LIST_PAGE_SIZE_MAX);
    }

    /**
     * With the write ids of puts drawn from {@code writeIds} and listings fetched in pages of
     * {@code listPageSize} keys: tests give two puts the same id, and page through few keys.
     */
    static S3ObjectStore open(S3ObjectStoreConfig config, Supplier<UUID> writeIds, int listPageSize) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(writeIds, "writeIds");
        if (listPageSize < 1 || listPageSize > LIST_PAGE_SIZE_MAX) {
            throw new IllegalArgumentException(
                    "listPageSize " + listPageSize + " is outside [1, " + LIST_PAGE_SIZE_MAX + "]");
        }
        AwsCredentialsProvider credentials = S3Clients.credentialsProvider(config);
        S3Client client = null;
        try {
            BucketCheck.resolveCredentials(config, credentials);
            client = S3Clients.create(config, credentials);
            BucketCheck.headBucket(config, client);
        } catch (RuntimeException e) {
            closeQuietly(client, credentials);
            throw e;
        }
        LOGGER.info("opened object store location={}", config.describe());
        return new S3ObjectStore(config, credentials, client, writeIds, listPageSize);
    }

    @Override
    public void put(ObjectKey key, ByteBuffer content) {
        Objects.requireNonNull(content, "content");
        String bucketKey = keys.toBucketKey(key);
        WriteStamp stamp = WriteStamp.of(writeIds.get(), content);
        PutObjectRequest request = PutObjectRequest.builder()
                .bucket(config.bucket())
                .key(bucketKey)
                .ifNoneMatch("*")
                .contentLength(stamp.sizeBytes())
                .metadata(stamp.toMetadata())
                .build();
        try {
            client.putObject(
                    request,
                    RequestBody.fromContentProvider(
                            new ByteBufferContent(content), stamp.sizeBytes(), "application/octet-stream"));
        } catch (SdkException e) {
            if (S3Failures.status(e) == S3Failures.HTTP_PRECONDITION_FAILED) {
                confirmOwnWrite(key, bucketKey, stamp);
                return;
            }
            throw failures.of("put", key, e);
        }
    }

    @Override
    public ByteBuffer get(ObjectKey key, ByteRange range) {
        Objects.requireNonNull(range, "range");
        String bucketKey = keys.toBucketKey(key);
        if (range.length() == 0) {
            // HTTP has no empty range: ask for the size instead, so a missing object or a start past the
            // end still fails as for any other range.
            checkWithin(key, range, head(key, bucketKey).contentLength());
            return ByteBuffer.allocate(0);
        }
        GetObjectRequest request = GetObjectRequest.builder()
                .bucket(config.bucket())
                .key(bucketKey)
                .range("bytes=" + range.position() + "-" + (range.end() - 1))
                .build();
        try (ResponseInputStream<GetObjectResponse> in = client.getObject(request)) {
            return RangeReads.read(in, key, range, this::pastEnd);
        } catch (IOException e) {
            throw failures.of("get", key, e);
        } catch (SdkException e) {
            throw getFailure(key, e, range);
        }
    }

    @Override
    public ByteBuffer get(ObjectKey key) {
        GetObjectRequest request = GetObjectRequest.builder()
                .bucket(config.bucket())
                .key(keys.toBucketKey(key))
                .build();
        try (ResponseInputStream<GetObjectResponse> in = client.getObject(request)) {
            return RangeReads.readWhole(in, key, config.describe());
        } catch (IOException e) {
            throw failures.of("get", key, e);
        } catch (SdkException e) {
            throw getFailure(key, e, null);
        }
    }

    @Override
    public List<ObjectInfo> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        String bucketPrefix = keys.toBucketPrefix(prefix);
        ListObjectsV2Request request = ListObjectsV2Request.builder()
                .bucket(config.bucket())
                .prefix(bucketPrefix.isEmpty() ? null : bucketPrefix)
                .maxKeys(listPageSize)
                .build();
        List<ObjectInfo> found = new ArrayList<>();
        try {
            for (S3Object object : client.listObjectsV2Paginator(request).contents()) {
                Optional<ObjectKey> key = keys.toObjectKey(object.key());
                if (key.isPresent()) {
                    found.add(new ObjectInfo(key.get(), object.size(), object.lastModified()));
                } else {
                    LOGGER.warn(
                            "skipping a bucket key that is no object key location={} key={}",
                            config.describe(),
                            object.key());
                }
            }
        } catch (SdkException e) {
            throw failures.ofList(prefix, e);
        }
        // S3 lists in UTF-8 byte order; the contract's key order is ObjectKey's (UTF-16) order.
        found.sort(Comparator.comparing(ObjectInfo::key));
        return found;
    }

    @Override
    public void delete(ObjectKey key) {
        String bucketKey = keys.toBucketKey(key);
        try {
            client.deleteObject(b -> b.bucket(config.bucket()).key(bucketKey));
        } catch (SdkException e) {
            if (S3Failures.isMissingObject(e)) {
                return; // S3 answers 204 for a missing key; some compatible stores answer 404
            }
            throw failures.of("delete", key, e);
        }
    }

    /** {@code s3://bucket/prefix at http://endpoint}, or {@code ... in AWS region r}. */
    @Override
    public String describe() {
        return config.describe();
    }

    @Override
    public void close() {
        closeQuietly(client, credentials);
    }

    @Override
    public String toString() {
        return describe();
    }

    /**
     * A create-only put was answered 412. Decides from the stored object's metadata whether an earlier
     * attempt of this very put stored it (success) or another writer did (already exists).
     */
    private void confirmOwnWrite(ObjectKey key, String bucketKey, WriteStamp stamp) {
        HeadObjectResponse head;
        try {
            head = client.headObject(b -> b.bucket(config.bucket()).key(bucketKey));
        } catch (SdkException e) {
            if (S3Failures.isMissingObject(e)) {
                // The object that failed the precondition is gone again: this put stored nothing.
                throw new ObjectAlreadyExistsException(key);
            }
            // Retriable or not, the put's outcome is unknown now: an earlier attempt may have stored the object.
            throw new ObjectStoreException(
                    "put object " + key + " in " + describe()
                            + " was answered 412 and reading the object's metadata to see whether it is this put's own"
                            + " failed, so the put may or may not have stored it: " + S3Failures.detail(e)
                            + S3Failures.hint(e),
                    S3Failures.retriable(e),
                    e);
        }
        switch (stamp.match(head.contentLength(), head.metadata())) {
            case THIS_WRITE ->
                LOGGER.info(
                        "create-only put answered 412 for the object an earlier attempt of the"
                                + " same put stored: the put succeeded location={} key={}",
                        describe(),
                        key);
            case OTHER_WRITE -> throw new ObjectAlreadyExistsException(key);
            case THIS_WRITE_CHANGED ->
                throw new ObjectStoreException(
                        "object " + key + " in " + describe()
                                + " carries the write id of this put but has " + head.contentLength()
                                + " bytes and metadata "
                                + head.metadata() + " instead of " + stamp.sizeBytes() + " bytes with CRC32C "
                                + stamp.toMetadata().get(WriteStamp.CRC32C_HEX) + ": it was changed outside Floe",
                        false);
        }
    }

    private HeadObjectResponse head(ObjectKey key, String bucketKey) {
        try {
            return client.headObject(b -> b.bucket(config.bucket()).key(bucketKey));
        } catch (SdkException e) {
            throw getFailure(key, e, null);
        }
    }

    private ObjectStoreException getFailure(ObjectKey key, SdkException e, ByteRange range) {
        if (S3Failures.isMissingObject(e)) {
            return new ObjectNotFoundException(key);
        }
        if (range != null && S3Failures.status(e) == S3Failures.HTTP_RANGE_NOT_SATISFIABLE) {
            return new ObjectStoreException(
                    "range [" + range.position() + ", " + range.end() + ") of object " + key + " in " + describe()
                            + " starts past its end: " + S3Failures.detail(e),
                    false,
                    e);
        }
        return failures.of("get", key, e);
    }

    private void checkWithin(ObjectKey key, ByteRange range, long sizeBytes) {
        if (range.end() > sizeBytes) {
            throw pastEnd(key, range, sizeBytes);
        }
    }

    private ObjectStoreException pastEnd(ObjectKey key, ByteRange range, long sizeBytes) {
        return new ObjectStoreException(
                "range [" + range.position() + ", " + range.end() + ") of object " + key + " in " + describe()
                        + " is past its end: the object has " + sizeBytes + " bytes",
                false);
    }

    private static void closeQuietly(S3Client client, AwsCredentialsProvider credentials) {
        if (client != null) {
            client.close();
        }
        if (credentials instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOGGER.warn("could not close the credentials provider", e);
            }
        }
    }
}
