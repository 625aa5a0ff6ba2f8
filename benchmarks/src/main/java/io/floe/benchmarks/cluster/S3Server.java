package io.floe.benchmarks.cluster;

import io.floe.benchmarks.e2e.ChildProcess;
import io.floe.benchmarks.e2e.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * S3Proxy 4.1.0 as a child JVM ({@code org.gaul.s3proxy.Main} on the classpath {@code run-cluster.sh} resolves with
 * the {@code s3proxy-runtime} profile): an S3-compatible server on 127.0.0.1 storing objects as files under
 * {@code dir/data} (the {@code filesystem-nio2} backend; see NOTES.md for why not {@code filesystem}), checking AWS
 * V4 signatures against one key pair. Its OpenTelemetry metrics ({@code s3proxy.metrics.enabled}) count every
 * request it served by S3 operation: the requests an S3 bill is made of, whoever made them (the agents' produce and
 * fetch paths, and their maintenance jobs, which the agents' own {@code floe_objectstore_*} meters do not see).
 */
final class S3Server implements AutoCloseable {

    static final String ACCESS_KEY = "floe-bench-access";
    static final String SECRET_KEY = "floe-bench-secret";
    static final String BUCKET = "floe-data";
    static final String METRIC = "http_server_request_duration_seconds_count";
    static final String SECONDS = "http_server_request_duration_seconds_sum";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration STOP_GRACE = Duration.ofSeconds(15);
    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(5);
    private static final String MAIN = "org.gaul.s3proxy.Main";

    private final ChildProcess process;
    private final int port;
    private final URI metricsUri;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

    private S3Server(ChildProcess process, int port, URI metricsUri) {
        this.process = process;
        this.port = port;
        this.metricsUri = metricsUri;
    }

    static S3Server start(Path dir, String classpath, List<String> jvmOptions)
            throws IOException, InterruptedException {
        Path data = Files.createDirectories(dir.resolve("data"));
        // filesystem-nio2 keeps a bucket as a directory: creating it creates the bucket.
        Files.createDirectories(data.resolve(BUCKET));
        int port = Ports.free();
        int metricsPort = Ports.free();
        Path properties = Files.writeString(
                dir.resolve("s3proxy.properties"),
                String.join(
                        "\n",
                        "s3proxy.endpoint=http://127.0.0.1:" + port,
                        "s3proxy.authorization=aws-v2-or-v4",
                        "s3proxy.identity=" + ACCESS_KEY,
                        "s3proxy.credential=" + SECRET_KEY,
                        "jclouds.provider=filesystem-nio2",
                        "jclouds.filesystem.basedir=" + data,
                        "s3proxy.metrics.enabled=true",
                        "s3proxy.metrics.host=127.0.0.1",
                        "s3proxy.metrics.port=" + metricsPort,
                        ""));
        Path logback = Files.writeString(dir.resolve("logback.xml"), """
                <configuration>
                  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
                  </appender>
                  <root level="WARN"><appender-ref ref="out"/></root>
                </configuration>
                """);
        List<String> jvm = new java.util.ArrayList<>(jvmOptions);
        jvm.add("-Dlogback.configurationFile=" + logback);
        ChildProcess process = ChildProcess.start(
                "s3proxy",
                ChildProcess.javaCommand(classpath, jvm, MAIN, List.of("--properties", properties.toString())),
                dir.resolve("s3proxy.log"),
                Map.of());
        S3Server server = new S3Server(process, port, URI.create("http://127.0.0.1:" + metricsPort + "/metrics"));
        try {
            server.awaitReady();
        } catch (IOException | RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
        return server;
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The agents' {@code --objects} URL for a prefix of the bucket. */
    String objectsUrl(String prefix) {
        return "s3://" + BUCKET + "/" + prefix;
    }

    /** Requests served so far, and seconds spent serving them, by S3 operation (PutObject, GetObject, ...). */
    record Requests(Map<String, Double> counts, Map<String, Double> seconds) {}

    Requests requests() throws IOException, InterruptedException {
        Exposition metrics = scrape();
        return new Requests(
                Map.copyOf(metrics.sumBy(METRIC, "s3_operation")), Map.copyOf(metrics.sumBy(SECONDS, "s3_operation")));
    }

    Exposition scrape() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(metricsUri).timeout(HTTP_TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + metricsUri + " answered " + response.statusCode());
        }
        return Exposition.parse(response.body());
    }

    /** Ready when both listeners answer: the S3 endpoint (any HTTP status) and the metrics endpoint (200). */
    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "no attempt";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("S3Proxy exited while starting:\n" + process.logTail(30));
            }
            try {
                http.send(
                        HttpRequest.newBuilder(endpoint())
                                .timeout(HTTP_TIMEOUT)
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                scrape();
                return;
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            Thread.sleep(200);
        }
        throw new IOException(
                "S3Proxy not ready after " + START_TIMEOUT.toSeconds() + " s (" + last + "):\n" + process.logTail(30));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.stop(STOP_GRACE);
        }
    }
}
