package io.floe.cli.http;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.BooleanSupplier;

/** The operational routes every agent serves: {@code GET /metrics} and {@code GET /health}. */
public final class HealthAndMetrics {

    /** The Prometheus text exposition format that {@link PrometheusMeterRegistry#scrape()} writes. */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private HealthAndMetrics() {}

    /**
     * Adds the routes to {@code routes}.
     *
     * @param registry the registry {@code /metrics} scrapes
     * @param serving whether the agent serves clients: {@code /health} answers 200 "ok" while it
     *     does, and 503 while it starts or stops, so load balancers stop sending clients to it
     */
    public static RouteTable addTo(RouteTable routes, PrometheusMeterRegistry registry, BooleanSupplier serving) {
        return routes.get("/metrics", () -> new TextResponse(200, PROMETHEUS_TEXT, registry.scrape()))
                .get(
                        "/health",
                        () -> serving.getAsBoolean()
                                ? TextResponse.ok("ok")
                                : new TextResponse(503, TextResponse.PLAIN, "unavailable"));
    }
}
