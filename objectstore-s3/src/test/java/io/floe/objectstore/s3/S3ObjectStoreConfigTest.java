package io.floe.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class S3ObjectStoreConfigTest {

    private static final S3ObjectStoreConfig BASE = S3ObjectStoreConfig.forBucket("floe-data");

    @Test
    void startsFromDefaults() {
        assertThat(BASE.keyPrefix()).isEmpty();
        assertThat(BASE.endpoint()).isEmpty();
        assertThat(BASE.region()).isEqualTo("us-east-1");
        assertThat(BASE.pathStyleAccess()).isFalse();
        assertThat(BASE.credentials()).isEmpty();
        assertThat(BASE.apiCallTimeout()).isEqualTo(S3ObjectStoreConfig.DEFAULT_API_CALL_TIMEOUT);
        assertThat(BASE.apiCallAttemptTimeout()).isEqualTo(S3ObjectStoreConfig.DEFAULT_API_CALL_ATTEMPT_TIMEOUT);
        assertThat(BASE.maxRetries()).isEqualTo(S3ObjectStoreConfig.DEFAULT_MAX_RETRIES);
        assertThat(BASE.maxConnections()).isEqualTo(S3ObjectStoreConfig.DEFAULT_MAX_CONNECTIONS);
    }

    @Test
    void describesBucketPrefixAndWhere() {
        assertThat(BASE.describe()).isEqualTo("s3://floe-data in AWS region us-east-1");
        assertThat(BASE.withKeyPrefix("a/b")
                        .withEndpoint(URI.create("http://127.0.0.1:9000"))
                        .describe())
                .isEqualTo("s3://floe-data/a/b at http://127.0.0.1:9000");
    }

    @Test
    void readsBucketAndPrefixFromAnS3Url() {
        assertThat(S3ObjectStoreConfig.forUri(URI.create("s3://floe-data")))
                .isEqualTo(S3ObjectStoreConfig.forBucket("floe-data"));
        assertThat(S3ObjectStoreConfig.forUri(URI.create("s3://floe-data/cluster-1/objects/")))
                .isEqualTo(S3ObjectStoreConfig.forBucket("floe-data").withKeyPrefix("cluster-1/objects"));
        for (String url : new String[] {"file:///tmp/x", "s3:///x", "s3://floe-data:9000/x", "s3://floe-data/x?y=1"}) {
            assertThatThrownBy(() -> S3ObjectStoreConfig.forUri(URI.create(url)))
                    .as("url '%s'", url)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + url + "' is not an s3://bucket/prefix URL");
        }
    }

    @Test
    void dropsSlashesAroundThePrefix() {
        assertThat(BASE.withKeyPrefix("/a/b/").keyPrefix()).isEqualTo("a/b");
        assertThat(BASE.withKeyPrefix("///").keyPrefix()).isEmpty();
    }

    @Test
    void rejectsInvalidBucketNames() {
        for (String bucket : new String[] {"ab", "Floe", "floe_data", "-floe", "floe-", "a..b", "x".repeat(64), ""}) {
            assertThatThrownBy(() -> S3ObjectStoreConfig.forBucket(bucket))
                    .as("bucket '%s'", bucket)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bucket name '" + bucket + "' is not a valid S3 bucket name");
        }
        assertThat(S3ObjectStoreConfig.forBucket("a.b-1").bucket()).isEqualTo("a.b-1");
    }

    @Test
    void rejectsInvalidPrefixes() {
        for (String prefix : new String[] {"a//b", "a/../b", "a\\b"}) {
            assertThatThrownBy(() -> BASE.withKeyPrefix(prefix))
                    .as("prefix '%s'", prefix)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key prefix '" + prefix + "'");
        }
    }

    @Test
    void rejectsEndpointsThatAreNoPlainHttpUrls() {
        for (String endpoint : new String[] {
            "ftp://host", "localhost:9000", "http:///path", "http://user:pw@host", "http://host?x=1", "http://host#f"
        }) {
            assertThatThrownBy(() -> BASE.withEndpoint(URI.create(endpoint)))
                    .as("endpoint '%s'", endpoint)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("endpoint '" + endpoint + "'");
        }
        assertThat(BASE.withEndpoint(URI.create("https://s3.example.com")).endpoint())
                .isPresent();
    }

    @Test
    void rejectsInvalidRegionsTimeoutsAndLimits() {
        assertThatThrownBy(() -> BASE.withRegion("")).hasMessageContaining("region ''");
        assertThatThrownBy(() -> BASE.withRegion("us east")).hasMessageContaining("region 'us east'");
        assertThatThrownBy(() -> BASE.withTimeouts(Duration.ZERO, Duration.ZERO))
                .hasMessageContaining("timeouts must be positive");
        assertThatThrownBy(() -> BASE.withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(11)))
                .hasMessage(
                        "apiCallAttemptTimeout PT11S exceeds apiCallTimeout PT10S: no attempt could use its full time");
        assertThatThrownBy(() -> BASE.withMaxRetries(-1)).hasMessage("maxRetries -1 is outside [0, 10]");
        assertThatThrownBy(() -> BASE.withMaxRetries(11)).hasMessage("maxRetries 11 is outside [0, 10]");
        assertThatThrownBy(() -> BASE.withMaxConnections(0)).hasMessage("maxConnections 0 is outside [1, 1024]");
        assertThat(BASE.withMaxRetries(0).withMaxConnections(1024).maxConnections())
                .isEqualTo(1024);
    }

    @Test
    void hidesTheSecret() {
        S3ObjectStoreConfig config = BASE.withStaticCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI");

        assertThat(config.toString()).contains("AKIDEXAMPLE").doesNotContain("wJalrXUtnFEMI");
        assertThatThrownBy(() -> BASE.withStaticCredentials("id", " "))
                .hasMessageContaining("non-blank access key id and secret");
    }
}
