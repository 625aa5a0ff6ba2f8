package io.floe.maintenance.producers;

import io.floe.core.metadata.LogRetention;
import io.floe.maintenance.Job;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;

/**
 * One round of producer state expiry: forgets, per producer and partition, the state of producers
 * idle for longer than the expiration. A producer that comes back after that is refused as out of
 * order until it starts a new epoch at sequence 0 (the Java client and librdkafka do so on their own);
 * its retries older than the expiration are no longer recognized, so the expiration must stay well
 * above the clients' {@code delivery.timeout.ms} (2 minutes by default).
 */
public final class ProducerStateExpiry implements Job {

    public static final String NAME = "producer-expiry";

    private final LogRetention metadata;
    private final Duration expiration;
    private final Counter expired;

    public ProducerStateExpiry(LogRetention metadata, Duration expiration, MeterRegistry meters) {
        this.metadata = metadata;
        this.expiration = expiration;
        this.expired = Counter.builder("floe.producers.expired")
                .description("Producer states (per producer and partition) forgotten after producer.id.expiration.ms")
                .register(meters);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String run(Instant now) {
        int forgotten = metadata.expireProducers(now.minus(expiration));
        expired.increment(forgotten);
        return "expired=" + forgotten + " idleFor=" + expiration;
    }
}
