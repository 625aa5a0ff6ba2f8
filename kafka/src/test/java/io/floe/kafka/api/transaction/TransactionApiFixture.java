package io.floe.kafka.api.transaction;

import io.floe.agent.transaction.MarkerListener;
import io.floe.agent.transaction.TransactionCoordinator;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.kafka.api.ClientConnection;
import io.floe.kafka.api.RequestContext;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A coordinator over an embedded SQLite store, in a directory of its own that {@link #close()}
 * deletes, where only topic "orders" (two partitions) exists, for the APIs' unit tests.
 */
final class TransactionApiFixture implements AutoCloseable {

    final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    final MetadataStore store;
    final TransactionCoordinator coordinator;
    private final Path directory;

    TransactionApiFixture() {
        try {
            directory = Files.createTempDirectory("floe-transaction-apis");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        store = SqlMetadataStore.openSqlite(directory.resolve("metadata.db"), clock);
        store.createTopic(new NewTopic("orders", 3, Map.of()));
        coordinator = new TransactionCoordinator(
                store,
                clock,
                Duration.ofMinutes(15),
                Duration.ofSeconds(10),
                MarkerListener.of(markers -> {}, () -> {}),
                id -> true,
                new SimpleMeterRegistry());
    }

    @Override
    public void close() {
        store.close();
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static RequestContext context(ApiKeys key, int version) {
        return new RequestContext(
                new RequestHeader(key, (short) version, "test", 1),
                new ClientConnection(new InetSocketAddress("127.0.0.1", 1)));
    }

    ProducerEpoch init(String transactionalId) {
        return ((TransactionOutcome.Done) coordinator.initProducer(transactionalId, 60_000, null)).producer();
    }

    /** A transaction of {@code transactionalId} with one record written to each of {@code partitions}. */
    ProducerEpoch open(String transactionalId, TopicPartition... partitions) {
        ProducerEpoch producer = init(transactionalId);
        coordinator.addPartitions(transactionalId, producer, List.of(partitions));
        ProduceFixture produce = new ProduceFixture(store);
        for (TopicPartition partition : partitions) {
            Topic topic = store.topic(partition.topic()).orElseThrow();
            List<AppendResult> results = produce.commit(produce.transactional(
                    topic, partition.partition(), producer, 0, 1, TransactionalAppend.IN_TRANSACTION));
            if (!(results.get(0) instanceof AppendResult.Appended)) {
                throw new AssertionError("the transaction's record in " + partition + " was refused: " + results);
            }
        }
        return producer;
    }
}
