package io.floe.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ExpositionTest {

    private static final String AGENT = """
            # HELP floe_objectstore_requests_seconds Object-store requests by kind, with latency
            # TYPE floe_objectstore_requests_seconds summary
            floe_objectstore_requests_seconds_count{kind="GET"} 12
            floe_objectstore_requests_seconds_count{kind="PUT"} 40
            floe_objectstore_requests_seconds{kind="PUT",quantile="0.99"} 0.25
            floe_fetch_reads_total{source="cache"} 90.0
            floe_fetch_reads_total{source="object-store"} 10.0
            floe_produce_buffered_bytes 0.0
            floe_weird{path="a \\"quoted\\" \\\\ value",x="1"} 3 1700000000000
            """;

    @Test
    void sumsSamplesByNameAndLabels() {
        Exposition metrics = Exposition.parse(AGENT);

        assertThat(metrics.sum("floe_objectstore_requests_seconds_count", Map.of("kind", "PUT")))
                .isEqualTo(40);
        assertThat(metrics.sum("floe_objectstore_requests_seconds_count")).isEqualTo(52);
        assertThat(metrics.sum("floe_fetch_reads_total", Map.of("source", "cache")))
                .isEqualTo(90);
        assertThat(metrics.sum("floe_produce_buffered_bytes")).isZero();
        assertThat(metrics.sum("absent")).isZero();
        assertThat(metrics.sumBy("floe_fetch_reads_total", "source"))
                .containsExactly(Map.entry("cache", 90.0), Map.entry("object-store", 10.0));
    }

    @Test
    void readsEscapedLabelValuesAndIgnoresTimestamps() {
        Exposition.Sample weird = Exposition.parse(AGENT).samples().stream()
                .filter(s -> s.name().equals("floe_weird"))
                .findFirst()
                .orElseThrow();

        assertThat(weird.labels())
                .containsEntry("path", "a \"quoted\" \\ value")
                .containsEntry("x", "1");
        assertThat(weird.value()).isEqualTo(3);
    }

    @Test
    void sumsS3ProxyRequestCountsByOperation() {
        Exposition s3 = Exposition.parse("""
                http_server_request_duration_seconds_count{http_request_method="PUT",http_response_status_code="200",\
                s3_bucket="floe-data",s3_operation="PutObject",url_scheme="http"} 7
                http_server_request_duration_seconds_count{http_request_method="PUT",http_response_status_code="412",\
                s3_bucket="floe-data",s3_operation="PutObject",url_scheme="http"} 1
                http_server_request_duration_seconds_bucket{s3_operation="PutObject",le="+Inf"} 8
                http_server_request_duration_seconds_count{http_request_method="GET",http_response_status_code="200",\
                s3_bucket="floe-data",s3_operation="GetObject",url_scheme="http"} 3
                """);

        assertThat(s3.sumBy(S3Server.METRIC, "s3_operation"))
                .containsExactly(Map.entry("PutObject", 8.0), Map.entry("GetObject", 3.0));
        assertThat(s3.sum("http_server_request_duration_seconds_bucket")).isEqualTo(8);
    }
}
