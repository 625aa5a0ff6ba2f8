package io.floe.agent.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionError;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.core.transaction.TransactionState;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransactionCoordinatorTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<TransactionMarker> markers = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicInteger mayHaveWritten = new AtomicInteger();
    private Set<String> coordinated = Set.of("tx-1", "tx-2");

    @TempDir
    Path directory;

    private MetadataStore store;
    private TransactionCoordinator coordinator;

    @BeforeEach
    void open() {
        store = SqlMetadataStore.openSqlite(directory.resolve("metadata.db"), clock);
        store.createTopic(new NewTopic("orders", 2, Map.of()));
        coordinator = new TransactionCoordinator(
                store,
                clock,
                Duration.ofMinutes(15),
                Duration.ofSeconds(10),
                MarkerListener.of(markers::addAll, mayHaveWritten::incrementAndGet),
                id -> coordinated.contains(id),
                meters);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void initProducerRefusesTimeoutsOutsideTheMaximumBeforeTheStore() {
        assertThatThrownBy(() -> coordinator.initProducer("tx-1", 900_001, null))
                .isInstanceOfSatisfying(
                        InvalidTransactionRequestException.class,
                        e -> assertThat(e.reason())
                                .isEqualTo(InvalidTransactionRequestException.Reason.INVALID_TRANSACTION_TIMEOUT))
                .hasMessageContaining("900001")
                .hasMessageContaining("900000");
        assertThatThrownBy(() -> coordinator.initProducer("tx-1", 0, null))
                .isInstanceOf(InvalidTransactionRequestException.class);
        assertThatThrownBy(() -> coordinator.initProducer("", 1000, null))
                .isInstanceOfSatisfying(
                        InvalidTransactionRequestException.class,
                        e -> assertThat(e.reason())
                                .isEqualTo(InvalidTransactionRequestException.Reason.INVALID_REQUEST));
        assertThat(store.transactions()).isEmpty();
        assertThat(meters.counter("floe.transaction.errors", "kind", "invalid_transaction_timeout")
                        .count())
                .isEqualTo(2);
        assertThat(coordinator.initProducer("tx-1", 900_000, null)).isInstanceOf(TransactionOutcome.Done.class);
    }

    @Test
    void commitHandsItsMarkersOnAndCountsTheTransaction() {
        ProducerEpoch producer = init("tx-1");
        coordinator.addPartitions("tx-1", producer, List.of(ORDERS_0, ORDERS_1));
        write(producer, ORDERS_0);
        write(producer, ORDERS_1);
        coordinator.addOffsets("tx-1", producer, "group-1");
        CoordinatorLease group = store.acquireCoordinator(
                        "group-1", "agent-a", clock.instant(), Duration.ofSeconds(6), Duration.ZERO)
                .orElseThrow();
        coordinator.commitPendingOffsets("tx-1", producer, group, Map.of(ORDERS_0, new CommittedOffset(7, -1, "", 0)));
        assertThat(store.fetchOffsets("group-1").pending()).containsExactly(ORDERS_0);

        TransactionOutcome ended = coordinator.endTransaction("tx-1", producer, true, false);

        assertThat(ended).isEqualTo(new TransactionOutcome.Done(producer, markers));
        assertThat(markers).extracting(TransactionMarker::topicPartition).containsExactly(ORDERS_0, ORDERS_1);
        assertThat(markers).allSatisfy(marker -> assertThat(marker.commit()).isTrue());
        assertThat(store.committedOffsets("group-1")).containsKey(ORDERS_0);
        assertThat(meters.counter("floe.transactions.committed").count()).isEqualTo(1);
        assertThat(meters.counter("floe.transactions.started").count()).isEqualTo(1);
    }

    @Test
    void endWithEpochBumpReturnsTheNextEpoch() {
        ProducerEpoch producer = init("tx-1");
        coordinator.addPartitions("tx-1", producer, List.of(ORDERS_0));

        TransactionOutcome ended = coordinator.endTransaction("tx-1", producer, false, true);

        assertThat(((TransactionOutcome.Done) ended).producer())
                .isEqualTo(new ProducerEpoch(producer.producerId(), (short) (producer.epoch() + 1)));
        assertThat(meters.counter("floe.transactions.aborted").count()).isEqualTo(1);
    }

    @Test
    void refusalsAreCountedByKind() {
        ProducerEpoch producer = init("tx-1");
        init("tx-1");

        TransactionOutcome fenced = coordinator.addPartitions("tx-1", producer, List.of(ORDERS_0));
        TransactionOutcome unknown =
                coordinator.addPartitions("tx-1", current("tx-1"), List.of(new TopicPartition("nope", 0)));

        assertThat(fenced)
                .isInstanceOfSatisfying(
                        TransactionOutcome.Refused.class,
                        refused -> assertThat(refused.error()).isEqualTo(TransactionError.PRODUCER_FENCED));
        assertThat(unknown).isInstanceOf(TransactionOutcome.UnknownPartitions.class);
        assertThat(meters.counter("floe.transaction.errors", "kind", "producer_fenced")
                        .count())
                .isEqualTo(1);
        assertThat(meters.counter("floe.transaction.errors", "kind", "unknown_topic_or_partition")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void initProducerAbortingAnOpenTransactionHandsOnItsMarkers() {
        ProducerEpoch producer = init("tx-1");
        coordinator.addPartitions("tx-1", producer, List.of(ORDERS_0));
        write(producer, ORDERS_0);

        init("tx-1");

        assertThat(markers)
                .singleElement()
                .satisfies(marker -> assertThat(marker.commit()).isFalse());
        assertThat(meters.counter("floe.transactions.aborted").count()).isEqualTo(1);
    }

    /** Timed from the round that first saw each transaction open, on this agent's clock. */
    @Test
    void timeoutLoopAbortsOnlyExpiredTransactionsCoordinatedHere() {
        ProducerEpoch first = init("tx-1");
        ProducerEpoch other = init("tx-3");
        ProducerEpoch young = init("tx-2");
        coordinator.addPartitions("tx-1", first, List.of(ORDERS_0));
        write(first, ORDERS_0);
        coordinator.addPartitions("tx-3", other, List.of(ORDERS_1));
        write(other, ORDERS_1);
        assertThat(coordinator.abortExpired()).isZero();
        clock.step(Duration.ofSeconds(50));
        coordinator.addPartitions("tx-2", young, List.of(ORDERS_1));
        assertThat(coordinator.abortExpired()).isZero();
        assertThat(coordinator.nextRoundIn(Duration.ofSeconds(30)))
                .as("the next round runs when tx-1 reaches its timeout, before the interval is up")
                .isEqualTo(Duration.ofSeconds(10));
        clock.step(Duration.ofSeconds(11));

        assertThat(coordinator.abortExpired()).isEqualTo(1);

        assertThat(store.transaction("tx-1").orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_ABORT);
        assertThat(store.transaction("tx-1").orElseThrow().producer().epoch()).isEqualTo((short) (first.epoch() + 1));
        assertThat(store.transaction("tx-3").orElseThrow().state()).isEqualTo(TransactionState.ONGOING);
        assertThat(markers).extracting(TransactionMarker::topicPartition).containsExactly(ORDERS_0);
        assertThat(meters.counter("floe.transactions.timed.out").count()).isEqualTo(1);
        assertThat(meters.get("floe.transactions.open").gauge().value()).isEqualTo(1);
        assertThat(meters.get("floe.transactions.open.oldest.age").gauge().value())
                .isEqualTo(11.0);
        assertThat(meters.counter("floe.transactions.started").count()).isEqualTo(2);

        coordinator.endTransaction("tx-2", young, true, false);
        coordinator.abortExpired();
        assertThat(meters.counter("floe.transactions.started").count()).isEqualTo(2);
        assertThat(meters.get("floe.transactions.open").gauge().value()).isZero();
    }

    /**
     * A coordinator that first sees a transaction long after it began (it just took the id over) gives it
     * its whole timeout, but no more than twice the timeout from its begin stamp: a coordinator that keeps
     * moving cannot keep a transaction open for ever.
     */
    @Test
    void aTransactionFirstSeenLateGetsItsTimeoutUpToTwiceTheTimeoutFromItsBegin() {
        ProducerEpoch late = init("tx-1");
        coordinator.addPartitions("tx-1", late, List.of(ORDERS_0));
        clock.step(Duration.ofSeconds(70));

        assertThat(coordinator.abortExpired()).isZero();
        clock.step(Duration.ofSeconds(45));
        assertThat(coordinator.abortExpired()).as("seen 45 s, begun 115 s ago").isZero();
        clock.step(Duration.ofSeconds(5));

        assertThat(coordinator.abortExpired()).as("begun twice its timeout ago").isEqualTo(1);
    }

    /** One record of {@code producer}'s transaction in {@code partition}: a marker goes only where one was written. */
    @Test
    void anEndWhoseAnswerIsLostTellsTheListenerMarkersMayHaveBeenWritten() {
        ProducerEpoch producer = init("tx-1");
        coordinator.addPartitions("tx-1", producer, List.of(ORDERS_0));
        write(producer, ORDERS_0);
        TransactionCoordinator lossy = new TransactionCoordinator(
                new AnswerLostAfterEnd(store),
                clock,
                Duration.ofMinutes(15),
                Duration.ofSeconds(10),
                MarkerListener.of(markers::addAll, mayHaveWritten::incrementAndGet),
                id -> true,
                meters);

        assertThatThrownBy(() -> lossy.endTransaction("tx-1", producer, true, false))
                .hasMessageContaining("answer lost");

        assertThat(store.transaction("tx-1").orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(markers)
                .as("the markers the store wrote never reached the listener")
                .isEmpty();
        assertThat(mayHaveWritten)
                .as("so it is told they may have been written")
                .hasValue(1);
        lossy.addPartitions("tx-1", producer, List.of(ORDERS_1));
        assertThat(mayHaveWritten)
                .as("an operation that writes no markers never tells")
                .hasValue(1);
    }

    /** A store whose EndTxn applies, then fails to answer, as a connection lost after the commit does. */
    private static final class AnswerLostAfterEnd extends ForwardingMetadataStore {

        AnswerLostAfterEnd(MetadataStore delegate) {
            super(delegate);
        }

        @Override
        public TransactionOutcome endTransaction(
                String transactionalId, ProducerEpoch producer, boolean commit, boolean bumpEpoch, Instant now) {
            super.endTransaction(transactionalId, producer, commit, bumpEpoch, now);
            throw new MetadataStoreException("answer lost", true, null);
        }
    }

    private void write(ProducerEpoch producer, TopicPartition partition) {
        ProduceFixture produce = new ProduceFixture(store);
        Topic topic = store.topic(partition.topic()).orElseThrow();
        assertThat(produce.commit(produce.transactional(
                        topic, partition.partition(), producer, 0, 1, TransactionalAppend.IN_TRANSACTION)))
                .singleElement()
                .isInstanceOf(AppendResult.Appended.class);
    }

    private ProducerEpoch init(String transactionalId) {
        return ((TransactionOutcome.Done) coordinator.initProducer(transactionalId, 60_000, null)).producer();
    }

    private ProducerEpoch current(String transactionalId) {
        return store.transaction(transactionalId).orElseThrow().producer();
    }
}
