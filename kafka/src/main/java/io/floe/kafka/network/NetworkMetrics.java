package io.floe.kafka.network;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.Errors;

/**
 * The listener's meters: per API (tag {@code api}, Kafka's API name or {@value #UNKNOWN_API}) request
 * counts, latency, request and response sizes and errors (tag {@code error}); connections open,
 * accepted and closed; and frames refused before reaching an API (tag {@code reason}).
 */
public final class NetworkMetrics {

    /** The api tag of frames whose API could not be determined or is not a Kafka API. */
    public static final String UNKNOWN_API = "unknown";

    private final MeterRegistry registry;
    private final AtomicInteger open = new AtomicInteger();
    private final Counter accepted;
    private final Counter closed;
    private final Map<String, ApiMeters> byApi = new ConcurrentHashMap<>();
    private final Map<String, Counter> errors = new ConcurrentHashMap<>();
    private final Map<String, Counter> badFrames = new ConcurrentHashMap<>();

    public NetworkMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("floe.kafka.connections", open, AtomicInteger::get)
                .description("Open Kafka client connections")
                .register(registry);
        this.accepted = Counter.builder("floe.kafka.connections.accepted").register(registry);
        this.closed = Counter.builder("floe.kafka.connections.closed").register(registry);
    }

    /** Monotonic time from the registry's clock, for latencies. */
    long nanoTime() {
        return registry.config().clock().monotonicTime();
    }

    void connectionOpened() {
        open.incrementAndGet();
        accepted.increment();
    }

    void connectionClosed() {
        open.decrementAndGet();
        closed.increment();
    }

    void requestReceived(String api, int bytes) {
        ApiMeters meters = meters(api);
        meters.requests.increment();
        meters.requestBytes.record(bytes);
    }

    void responseSent(String api, long bytes, long startNanos, long nowNanos) {
        ApiMeters meters = meters(api);
        meters.responseBytes.record(bytes);
        meters.latency.record(nowNanos - startNanos, TimeUnit.NANOSECONDS);
    }

    /** A request that is never answered on the wire (produce with acks=0) has completed. */
    void requestCompletedSilently(String api, long startNanos, long nowNanos) {
        meters(api).latency.record(nowNanos - startNanos, TimeUnit.NANOSECONDS);
    }

    void errors(String api, Map<Errors, Integer> counts) {
        counts.forEach((error, count) -> {
            if (error != Errors.NONE && count > 0) {
                errors.computeIfAbsent(
                                api + '/' + error.name(),
                                key -> Counter.builder("floe.kafka.errors")
                                        .tag("api", api)
                                        .tag("error", error.name())
                                        .register(registry))
                        .increment(count);
            }
        });
    }

    void error(String api, Errors error) {
        errors(api, Map.of(error, 1));
    }

    void badFrame(String reason) {
        badFrames
                .computeIfAbsent(
                        reason,
                        key -> Counter.builder("floe.kafka.bad.frames")
                                .description("Request frames refused before reaching an API")
                                .tag("reason", reason)
                                .register(registry))
                .increment();
    }

    private ApiMeters meters(String api) {
        return byApi.computeIfAbsent(
                api,
                name -> new ApiMeters(
                        Counter.builder("floe.kafka.requests").tag("api", name).register(registry),
                        Timer.builder("floe.kafka.request.latency")
                                .tag("api", name)
                                .register(registry),
                        DistributionSummary.builder("floe.kafka.request.bytes")
                                .baseUnit("bytes")
                                .tag("api", name)
                                .register(registry),
                        DistributionSummary.builder("floe.kafka.response.bytes")
                                .baseUnit("bytes")
                                .tag("api", name)
                                .register(registry)));
    }

    private record ApiMeters(
            Counter requests, Timer latency, DistributionSummary requestBytes, DistributionSummary responseBytes) {}
}
