package io.floe.kafka.api.transaction;

import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.log.TopicPartition;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.kafka.api.ClientConnection;
import io.floe.kafka.api.RequestContext;
import io.floe.testkit.time.ManualClock;
import io.floe.testkit.transaction.InMemoryTransactions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;

/** A coordinator over an in-memory store where only topic "orders" exists, for the APIs' unit tests. */
final class TransactionApiFixture {

    final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    final InMemoryTransactions store = new InMemoryTransactions(p -> p.topic().equals("orders"));
    final TransactionCoordinator coordinator = new TransactionCoordinator(
            store,
            clock,
            Duration.ofMinutes(15),
            Duration.ofSeconds(10),
            markers -> {},
            id -> true,
            new SimpleMeterRegistry());

    static RequestContext context(ApiKeys key, int version) {
        return new RequestContext(
                new RequestHeader(key, (short) version, "test", 1),
                new ClientConnection(new InetSocketAddress("127.0.0.1", 1)));
    }

    ProducerEpoch init(String transactionalId) {
        return ((TransactionOutcome.Done) coordinator.initProducer(transactionalId, 60_000, null)).producer();
    }

    ProducerEpoch open(String transactionalId, TopicPartition... partitions) {
        ProducerEpoch producer = init(transactionalId);
        coordinator.addPartitions(transactionalId, producer, List.of(partitions));
        return producer;
    }
}
