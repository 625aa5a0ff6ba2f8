package io.floe.agent.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.core.transaction.TransactionState;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transaction timeouts across agents whose clocks disagree by seconds: agent A (the partition's leader)
 * begins each transaction with a Kafka 4.x producer's first batch and stamps it on its own clock; agent B,
 * the transactional id's coordinator, runs the timeout loop on its clock, {@code skew} ahead of A's. A
 * healthy transaction (8 s of a 10 s timeout) must never be aborted, and one whose producer went away
 * must still be aborted within its timeout plus one scan interval of its begin.
 */
class TransactionTimeoutSkewTest {

    private static final String ID = "streams-task-0_1";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration SCAN_INTERVAL = Duration.ofSeconds(10);
    private static final Duration HEALTHY = Duration.ofSeconds(8);

    private final ManualClock trueTime = new ManualClock(Instant.parse("2026-03-01T00:00:00Z"));
    private final ManualScheduler scheduler = new ManualScheduler(trueTime);
    private final SimpleMeterRegistry coordinatorMeters = new SimpleMeterRegistry();

    @TempDir
    Path directory;

    private MetadataStore store;
    private Topic topic;
    private TransactionCoordinator leader;

    @BeforeEach
    void open() {
        // The store stamps a version 2 batch's begin with the clock of the agent that commits the batch: A's.
        store = SqlMetadataStore.openSqlite(directory.resolve("metadata.db"), trueTime);
        topic = store.createTopic(new NewTopic("orders", 1, Map.of()));
        leader = coordinator(trueTime, id -> false, new SimpleMeterRegistry());
        leader.start(scheduler);
    }

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        store.close();
    }

    @ParameterizedTest(name = "coordinator clock {0} ms from the leader''s")
    @ValueSource(longs = {5_000, -5_000, 0})
    void noHealthyTransactionIsAbortedAndAnAbandonedOneIsAbortedInTime(long skewMs) {
        TransactionCoordinator coordinator =
                coordinator(Clock.offset(trueTime, Duration.ofMillis(skewMs)), id -> true, coordinatorMeters);
        coordinator.start(scheduler);
        ProducerEpoch producer =
                ((TransactionOutcome.Done) leader.initProducer(ID, (int) TIMEOUT.toMillis(), null)).producer();
        scheduler.advanceBy(Duration.ofMillis(3_700)); // out of step with the scans

        for (int transaction = 0; transaction < 12; transaction++) {
            begin(producer);
            scheduler.advanceBy(HEALTHY);
            TransactionOutcome ended = leader.endTransaction(ID, producer, true, true);
            assertThat(ended)
                    .as("transaction %d, %s long, was aborted by the coordinator", transaction, HEALTHY)
                    .isInstanceOf(TransactionOutcome.Done.class);
            producer = ((TransactionOutcome.Done) ended).producer();
            scheduler.advanceBy(Duration.ofMillis(1_300));
        }
        assertThat(coordinatorMeters.counter("floe.transactions.timed.out").count())
                .isZero();

        Instant begun = trueTime.instant();
        begin(producer); // and the producer goes away
        Instant aborted = awaitAbort(begun.plus(TIMEOUT).plus(SCAN_INTERVAL).plusSeconds(10));

        assertThat(aborted).isAfterOrEqualTo(begun.plus(TIMEOUT));
        assertThat(aborted)
                .as("aborted within the timeout and one scan interval of its begin")
                .isBeforeOrEqualTo(begun.plus(TIMEOUT).plus(SCAN_INTERVAL));
    }

    /** A new coordinator times a transaction from when it first sees it: a move costs time, never an abort. */
    @ParameterizedTest(name = "new coordinator clock {0} ms from the leader''s")
    @ValueSource(longs = {5_000, -5_000})
    void aCoordinatorMoveRestartsTheTimerAndAbortsNothingHealthy(long skewMs) {
        TransactionCoordinator before = coordinator(trueTime, id -> true, coordinatorMeters);
        before.start(scheduler);
        ProducerEpoch producer =
                ((TransactionOutcome.Done) leader.initProducer(ID, (int) TIMEOUT.toMillis(), null)).producer();
        begin(producer);
        scheduler.advanceBy(Duration.ofSeconds(6));
        before.close();
        TransactionCoordinator after =
                coordinator(Clock.offset(trueTime, Duration.ofMillis(skewMs)), id -> true, coordinatorMeters);
        after.start(scheduler);
        scheduler.advanceBy(Duration.ofSeconds(3));

        TransactionOutcome ended = leader.endTransaction(ID, producer, true, true);

        assertThat(ended).isInstanceOf(TransactionOutcome.Done.class);
        producer = ((TransactionOutcome.Done) ended).producer();
        Instant moved = trueTime.instant();
        begin(producer);
        assertThat(awaitAbort(moved.plusSeconds(60)))
                .isBeforeOrEqualTo(moved.plus(TIMEOUT).plus(SCAN_INTERVAL));
    }

    private TransactionCoordinator coordinator(Clock clock, Predicate<String> coordinated, SimpleMeterRegistry meters) {
        return new TransactionCoordinator(
                store,
                clock,
                Duration.ofMinutes(15),
                SCAN_INTERVAL,
                MarkerListener.of(markers -> {}, () -> {}),
                coordinated,
                meters);
    }

    /** The producer's first batch of a transaction (Produce v12+: the batch begins it), committed by A. */
    private void begin(ProducerEpoch producer) {
        ProduceFixture produce = new ProduceFixture(store);
        assertThat(produce.commit(
                        produce.transactional(topic, 0, producer, 0, 1, TransactionalAppend.JOINS_TRANSACTION)))
                .singleElement()
                .isInstanceOf(AppendResult.Appended.class);
        assertThat(store.transaction(ID).orElseThrow().state()).isEqualTo(TransactionState.ONGOING);
    }

    /** Steps true time by 100 ms until the transaction is aborted; the time it was first seen aborted. */
    private Instant awaitAbort(Instant giveUp) {
        while (trueTime.instant().isBefore(giveUp)) {
            scheduler.advanceBy(Duration.ofMillis(100));
            if (store.transaction(ID).orElseThrow().state() == TransactionState.COMPLETE_ABORT) {
                assertThat(store.offsets(new TopicPartition("orders", 0)).lastStableOffset())
                        .isEqualTo(
                                store.offsets(new TopicPartition("orders", 0)).highWatermark());
                return trueTime.instant();
            }
        }
        throw new AssertionError("the abandoned transaction was not aborted by " + giveUp);
    }
}
