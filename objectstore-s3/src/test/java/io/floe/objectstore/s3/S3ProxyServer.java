package io.floe.objectstore.s3;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/**
 * A real S3-compatible server for tests: S3Proxy in this JVM on 127.0.0.1 with an ephemeral port,
 * storing buckets as directories under {@code root} (the filesystem-nio2 backend), with AWS V4
 * signature checks against one static key pair.
 */
final class S3ProxyServer implements AutoCloseable {

    static final String ACCESS_KEY = "floe-test-access";
    static final String SECRET_KEY = "floe-test-secret";

    private final BlobStore blobStore;
    private final S3Proxy proxy;
    private final URI endpoint;

    S3ProxyServer(Path root) throws Exception {
        blobStore = new FilesystemNio2BlobStore(root.toString());
        proxy = S3Proxy.builder()
                .blobStore(blobStore)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        proxy.start(); // Jetty's start is synchronous: the connector listens when it returns
        if (!proxy.getState().equals("STARTED")) {
            throw new IllegalStateException("S3Proxy did not start: state " + proxy.getState());
        }
        endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    URI endpoint() {
        return endpoint;
    }

    int port() {
        return proxy.getPort();
    }

    void createBucket(String bucket) {
        blobStore.createContainer(bucket);
    }

    /**
     * A configuration for {@code bucket} on this server (or on {@code endpoint}, e.g. a fault proxy in
     * front of it): path-style, the server's key pair, short timeouts and one retry.
     */
    static S3ObjectStoreConfig config(URI endpoint, String bucket) {
        return S3ObjectStoreConfig.forBucket(bucket)
                .withEndpoint(endpoint)
                .withPathStyleAccess(true)
                .withStaticCredentials(ACCESS_KEY, SECRET_KEY)
                .withTimeouts(Duration.ofSeconds(20), Duration.ofSeconds(10))
                .withMaxRetries(1);
    }

    S3ObjectStoreConfig config(String bucket) {
        return config(endpoint, bucket);
    }

    @Override
    public void close() {
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("S3Proxy did not stop", e);
        } finally {
            blobStore.close();
        }
    }
}
