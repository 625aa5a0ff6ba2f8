package io.floe.maintenance.producers;

import io.floe.core.metadata.Transactions;
import io.floe.maintenance.Job;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;

/**
 * One round of transactional id expiry: forgets the transactional ids that have had no open
 * transaction and no change for longer than the expiration, as Kafka's coordinator does, so that
 * applications that name a new transactional id per task or per checkpoint do not grow the store
 * forever. A producer that comes back with an expired id's producer id is refused
 * (INVALID_PRODUCER_ID_MAPPING) and starts afresh with InitProducerId.
 */
public final class TransactionalIdExpiry implements Job {

    public static final String NAME = "transactional-id-expiry";

    private final Transactions metadata;
    private final Duration expiration;
    private final Counter expired;

    public TransactionalIdExpiry(Transactions metadata, Duration expiration, MeterRegistry meters) {
        this.metadata = metadata;
        this.expiration = expiration;
        this.expired = Counter.builder("floe.transactional.ids.expired")
                .description("Transactional ids forgotten after transactional.id.expiration.ms without a change")
                .register(meters);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String run(Instant now) {
        int forgotten = metadata.expireTransactionalIds(now.minus(expiration));
        expired.increment(forgotten);
        return "expired=" + forgotten + " idleFor=" + expiration;
    }
}
