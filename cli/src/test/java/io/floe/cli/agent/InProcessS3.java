package io.floe.cli.agent;

import java.net.URI;
import java.nio.file.Path;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/**
 * A real S3-compatible server in the test JVM, as floe-objectstore-s3's tests run it: S3Proxy on
 * 127.0.0.1 with an ephemeral port, buckets as directories under {@code root}, AWS V4 signatures
 * checked against one key pair. Public for the end-to-end tests of package {@code e2e}.
 */
public final class InProcessS3 implements AutoCloseable {

    public static final String ACCESS_KEY = "floe-cli-access";
    public static final String SECRET_KEY = "floe-cli-secret-do-not-log";

    private final BlobStore blobStore;
    private final S3Proxy proxy;

    public InProcessS3(Path root) throws Exception {
        blobStore = new FilesystemNio2BlobStore(root.toString());
        proxy = S3Proxy.builder()
                .blobStore(blobStore)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        proxy.start(); // synchronous: the connector listens when it returns
        if (!proxy.getState().equals("STARTED")) {
            throw new IllegalStateException("S3Proxy did not start: state " + proxy.getState());
        }
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    public void createBucket(String bucket) {
        blobStore.createContainer(bucket);
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
