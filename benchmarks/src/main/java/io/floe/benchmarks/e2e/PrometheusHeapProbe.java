package io.floe.benchmarks.e2e;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * Reads used heap from a Prometheus {@code /metrics} endpoint as Micrometer's JVM binder exposes it: one
 * {@code jvm_memory_used_bytes{area="heap",id="<pool>"}} sample per heap pool, summed.
 */
final class PrometheusHeapProbe implements HeapSampler.Probe {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final String METRIC = "jvm_memory_used_bytes{";

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final URI uri;

    PrometheusHeapProbe(URI uri) {
        this.uri = uri;
    }

    @Override
    public long heapUsedBytes() throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + uri + " answered " + response.statusCode());
        }
        return heapUsedBytes(response.body())
                .orElseThrow(() -> new IllegalStateException("no " + METRIC + "area=\"heap\"...} sample at " + uri));
    }

    /** Sum of the heap pools' used bytes in a Prometheus text exposition; empty when it has none. */
    static OptionalLong heapUsedBytes(String exposition) {
        double sum = 0;
        boolean found = false;
        for (String line : exposition.split("\n")) {
            if (!line.startsWith(METRIC) || !line.contains("area=\"heap\"")) {
                continue;
            }
            int labelsEnd = line.lastIndexOf('}');
            String[] rest = line.substring(labelsEnd + 1).strip().split("\\s+");
            sum += Double.parseDouble(rest[0]);
            found = true;
        }
        return found ? OptionalLong.of((long) sum) : OptionalLong.empty();
    }
}
