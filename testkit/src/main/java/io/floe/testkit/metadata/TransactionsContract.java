package io.floe.testkit.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.ActiveProducer;
import io.floe.core.metadata.AppendError;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.CoordinatorLease;
import io.floe.core.metadata.OffsetOutOfRangeException;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.metadata.Transactions;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.OpenTransaction;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionDescription;
import io.floe.core.transaction.TransactionError;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.core.transaction.TransactionState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Transactions}: producers of transactional ids and their fencing, transactions
 * begun by partitions and offsets (or by a version 2 produce), ended with markers that take an offset,
 * the last stable offset, aborted ranges, pending offsets and timeouts. Extend it next to each
 * implementation; every method of the role must be called by some test here (see {@link RoleContract}).
 */
public abstract class TransactionsContract extends RoleContract {

    private static final Instant NOW = Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP);
    private static final int TIMEOUT_MS = 60_000;
    private static final String TXN = "txn-a";
    private static final String GROUP = "group-a";
    private static final Duration LEASE_TTL = Duration.ofSeconds(6);

    private Topic topic;
    private TopicPartition p0;
    private TopicPartition p1;

    @Override
    protected final Class<?> role() {
        return Transactions.class;
    }

    @BeforeEach
    final void createTopic() {
        topic = store.createTopic(new NewTopic("orders", 2, Map.of()));
        p0 = new TopicPartition("orders", 0);
        p1 = new TopicPartition("orders", 1);
    }

    @Test
    void aNewTransactionalIdGetsAProducerAndEachInitBumpsItsEpoch() {
        ProducerEpoch first = init(TXN);
        ProducerEpoch second = init(TXN);

        assertThat(first.epoch()).isZero();
        assertThat(second).isEqualTo(new ProducerEpoch(first.producerId(), (short) 1));
        assertThat(init("txn-b").producerId()).isNotEqualTo(first.producerId());
        TransactionDescription described = store.transaction(TXN).orElseThrow();
        assertThat(described.producer()).isEqualTo(second);
        assertThat(described.state()).isEqualTo(TransactionState.EMPTY);
        assertThat(described.timeoutMs()).isEqualTo(TIMEOUT_MS);
        assertThat(described.startedAtMs()).isEqualTo(TransactionDescription.NOT_STARTED);
        assertThat(store.transaction("never")).isEmpty();
        assertThat(store.transactions())
                .extracting(TransactionDescription::transactionalId)
                .containsExactly(TXN, "txn-b");
    }

    @Test
    void aCommitMarksEachPartitionItWroteAndMakesItsRecordsStable() {
        ProducerEpoch producer = init(TXN);
        assertDone(store.addPartitions(TXN, producer, List.of(p0, p1), NOW));
        produce.commit(produce.batch(topic, 0, 2)); // before the transaction: offsets 0-1
        appendAll(transactional(0, producer, 0, 3, TransactionalAppend.IN_TRANSACTION));
        appendAll(transactional(1, producer, 0, 4, TransactionalAppend.IN_TRANSACTION));
        produce.commit(produce.batch(topic, 0, 1)); // another producer's record inside the transaction: offset 5

        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 2, 6));
        assertThat(store.offsets(p1)).isEqualTo(new LogOffsets(0, 0, 4));
        assertThat(store.transaction(TXN).orElseThrow().partitions()).containsExactlyInAnyOrder(p0, p1);
        assertThat(store.producers(p0))
                .filteredOn(active -> active.producerId() == producer.producerId())
                .extracting(ActiveProducer::currentTxnStartOffset)
                .containsExactly(2L);

        TransactionOutcome.Done done = assertDone(store.endTransaction(TXN, producer, true, false, NOW));

        assertThat(done.producer()).isEqualTo(producer);
        assertThat(done.markers())
                .extracting(
                        TransactionMarker::topicPartition, TransactionMarker::offset, TransactionMarker::firstOffset)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(p0, 6L, 2L),
                        org.assertj.core.groups.Tuple.tuple(p1, 4L, 0L));
        assertThat(done.markers())
                .allSatisfy(marker -> assertThat(marker.commit()).isTrue());
        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 7, 7));
        assertThat(store.offsets(p1)).isEqualTo(new LogOffsets(0, 5, 5));
        assertThat(store.abortedTransactions(p0, 0, 7)).isEmpty();
        assertThat(store.producers(p0))
                .filteredOn(active -> active.producerId() == producer.producerId())
                .extracting(ActiveProducer::currentTxnStartOffset)
                .containsExactly(ActiveProducer.NO_TRANSACTION);
        TransactionDescription described = store.transaction(TXN).orElseThrow();
        assertThat(described.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(described.partitions()).isEmpty();
    }

    @Test
    void theUnstableLogsAreThePartitionsWithAnOpenTransaction() {
        ProducerEpoch producer = init(TXN);
        assertThat(store.unstableLogs()).isEmpty();
        assertDone(store.addPartitions(TXN, producer, List.of(p0, p1), NOW));
        produce.commit(produce.batch(topic, 0, 2));
        appendAll(transactional(0, producer, 0, 3, TransactionalAppend.IN_TRANSACTION));

        assertThat(store.unstableLogs()).containsExactly(Map.entry(p0, new LogOffsets(0, 2, 5)));

        assertDone(store.endTransaction(TXN, producer, false, false, NOW));
        assertThat(store.unstableLogs()).isEmpty();
    }

    @Test
    void idleTransactionalIdsExpireButNotOneWithAnOpenTransaction() {
        ProducerEpoch idle = init(TXN);
        ProducerEpoch open = init("txn-b");
        assertDone(store.addPartitions("txn-b", open, List.of(p0), NOW));
        Instant later = NOW.plusMillis(1);

        assertThat(store.expireTransactionalIds(NOW))
                .as("nothing is older than NOW")
                .isZero();
        assertThat(store.expireTransactionalIds(later)).isEqualTo(1);

        assertThat(store.transaction(TXN)).isEmpty();
        assertThat(store.transaction("txn-b")).isPresent();
        assertRefused(store.addPartitions(TXN, idle, List.of(p0), later), TransactionError.INVALID_PRODUCER_ID_MAPPING);
        ProducerEpoch again = init(TXN);
        assertThat(again.producerId()).isNotEqualTo(idle.producerId());
        assertThat(again.epoch()).isZero();
    }

    @Test
    void entriesServeMarkersAmongBatchesInOffsetOrder() {
        ProducerEpoch producer = init(TXN);
        assertDone(store.addPartitions(TXN, producer, List.of(p0), NOW));
        appendAll(transactional(0, producer, 0, 2, TransactionalAppend.IN_TRANSACTION));
        assertDone(store.endTransaction(TXN, producer, false, false, NOW));
        produce.commit(produce.batch(topic, 0, 3));

        List<LogEntry> entries =
                store.entries(List.of(new BatchesQuery(p0, 0, 10))).get(0);

        assertThat(entries).extracting(LogEntry::baseOffset).containsExactly(0L, 2L, 3L);
        assertThat(entries.get(1)).isInstanceOfSatisfying(TransactionMarker.class, marker -> {
            assertThat(marker.commit()).isFalse();
            assertThat(marker.producerId()).isEqualTo(producer.producerId());
            assertThat(marker.producerEpoch()).isEqualTo(producer.epoch());
        });
        assertThat(store.entries(List.of(new BatchesQuery(p0, 2, 2))).get(0))
                .extracting(LogEntry::baseOffset)
                .containsExactly(2L, 3L);
        assertThat(store.entries(List.of(new BatchesQuery(p0, 0, 2))).get(0))
                .extracting(LogEntry::baseOffset)
                .containsExactly(0L, 2L);
        assertThat(store.batches(p0, 0, 10)).extracting(LogEntry::baseOffset).containsExactly(0L, 3L);
    }

    @Test
    void anAbortLeavesAnAbortedRangeAndDropsThePendingOffsets() {
        ProducerEpoch producer = init(TXN);
        assertDone(store.addOffsets(TXN, producer, GROUP, NOW));
        assertDone(store.commitPendingOffsets(TXN, producer, coordinator(), Map.of(p1, offset(7)), NOW));
        assertThat(store.fetchOffsets(GROUP).pending()).containsExactly(p1);
        assertDone(store.addPartitions(TXN, producer, List.of(p0), NOW));
        produce.commit(produce.batch(topic, 0, 1));
        appendAll(transactional(0, producer, 0, 3, TransactionalAppend.IN_TRANSACTION));

        TransactionOutcome.Done done = assertDone(store.endTransaction(TXN, producer, false, false, NOW));

        assertThat(done.markers())
                .singleElement()
                .satisfies(marker -> assertThat(marker.offset()).isEqualTo(4));
        assertThat(store.abortedTransactions(p0, 0, 5))
                .containsExactly(new AbortedTransaction(producer.producerId(), 1, 4));
        assertThat(store.abortedTransactions(p0, 5, 10)).isEmpty();
        assertThat(store.abortedTransactions(p0, 0, 1)).isEmpty();
        assertThat(store.abortedTransactions(p0, 4, 5)).hasSize(1);
        assertThat(store.committedOffsets(GROUP)).isEmpty();
        assertThat(store.fetchOffsets(GROUP).pending()).isEmpty();
        assertThat(store.transaction(TXN).orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_ABORT);
    }

    @Test
    void abortedTransactionsBelowTheLogStartAreNoLongerKnown() {
        ProducerEpoch producer = init(TXN);
        assertDone(store.addPartitions(TXN, producer, List.of(p0), NOW));
        appendAll(transactional(0, producer, 0, 2, TransactionalAppend.IN_TRANSACTION));
        assertDone(store.endTransaction(TXN, producer, false, false, NOW)); // marker at 2
        produce.commit(produce.batch(topic, 0, 1));

        store.truncateLog(p0, 3, NOW);

        assertThatThrownBy(() -> store.abortedTransactions(p0, 0, 4)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(store.abortedTransactions(p0, 3, 4)).isEmpty();
    }

    @Test
    void aCommitMovesThePendingOffsetsToTheGroup() {
        ProducerEpoch producer = init(TXN);
        assertDone(store.addOffsets(TXN, producer, GROUP, NOW));
        assertDone(store.commitPendingOffsets(TXN, producer, coordinator(), Map.of(p0, offset(3), p1, offset(4)), NOW));
        assertDone(store.commitPendingOffsets(TXN, producer, coordinator(), Map.of(p0, offset(5)), NOW));
        assertThat(store.committedOffsets(GROUP)).isEmpty();
        assertThat(store.transaction(TXN).orElseThrow().offsetGroups()).containsExactly(GROUP);

        assertDone(store.endTransaction(TXN, producer, true, false, NOW));

        assertThat(store.committedOffsets(GROUP)).isEqualTo(Map.of(p0, offset(5), p1, offset(4)));
        assertThat(store.fetchOffsets(GROUP).pending()).isEmpty();
    }

    @Test
    void aFencedProducerChangesNothing() {
        ProducerEpoch zombie = init(TXN);
        assertDone(store.addPartitions(TXN, zombie, List.of(p0), NOW));
        ProducerEpoch current = init(TXN);

        assertRefused(store.addPartitions(TXN, zombie, List.of(p1), NOW), TransactionError.PRODUCER_FENCED);
        assertRefused(store.addOffsets(TXN, zombie, GROUP, NOW), TransactionError.PRODUCER_FENCED);
        assertRefused(
                store.commitPendingOffsets(TXN, zombie, coordinator(), Map.of(p0, offset(1)), NOW),
                TransactionError.PRODUCER_FENCED);
        assertRefused(store.endTransaction(TXN, zombie, true, false, NOW), TransactionError.PRODUCER_FENCED);
        assertFailed(
                produce.commit(transactional(0, zombie, 0, 1, TransactionalAppend.IN_TRANSACTION))
                        .get(0),
                AppendError.PRODUCER_FENCED);
        assertFailed(
                produce.commit(transactional(0, zombie, 0, 1, TransactionalAppend.JOINS_TRANSACTION))
                        .get(0),
                AppendError.PRODUCER_FENCED);
        assertRefused(store.initProducer(TXN, TIMEOUT_MS, zombie, NOW), TransactionError.PRODUCER_FENCED);
        assertRefused(
                store.addPartitions(
                        TXN, new ProducerEpoch(current.producerId() + 1, current.epoch()), List.of(p0), NOW),
                TransactionError.INVALID_PRODUCER_ID_MAPPING);
        assertRefused(
                store.addPartitions("never", current, List.of(p0), NOW), TransactionError.INVALID_PRODUCER_ID_MAPPING);

        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 0, 0));
        assertThat(store.fetchOffsets(GROUP).pending()).isEmpty();
        assertThat(store.transaction(TXN).orElseThrow().state()).isEqualTo(TransactionState.EMPTY);
    }

    @Test
    void initAbortsTheTransactionItFindsOpen() {
        ProducerEpoch zombie = init(TXN);
        assertDone(store.addPartitions(TXN, zombie, List.of(p0), NOW));
        appendAll(transactional(0, zombie, 0, 2, TransactionalAppend.IN_TRANSACTION));
        assertThat(store.offsets(p0).lastStableOffset()).isZero();

        TransactionOutcome.Done done = assertDone(store.initProducer(TXN, TIMEOUT_MS, null, NOW));

        assertThat(done.producer().epoch()).isEqualTo((short) 1);
        assertThat(done.markers())
                .singleElement()
                .satisfies(marker -> assertThat(marker.commit()).isFalse());
        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 3, 3));
        assertThat(store.abortedTransactions(p0, 0, 3))
                .containsExactly(new AbortedTransaction(zombie.producerId(), 0, 2));
    }

    @Test
    void aRecoveringProducerNamesItsEpochAndARetryOfItsBumpIsAnswered() {
        ProducerEpoch first = init(TXN);

        TransactionOutcome.Done bumped = assertDone(store.initProducer(TXN, TIMEOUT_MS, first, NOW));
        TransactionOutcome.Done retried = assertDone(store.initProducer(TXN, TIMEOUT_MS, first, NOW));

        assertThat(bumped.producer()).isEqualTo(new ProducerEpoch(first.producerId(), (short) 1));
        assertThat(retried.producer()).isEqualTo(bumped.producer());
        assertRefused(
                store.initProducer(TXN, TIMEOUT_MS, new ProducerEpoch(first.producerId(), (short) 7), NOW),
                TransactionError.PRODUCER_FENCED);
    }

    @Test
    void version1BatchesNeedTheirPartitionInAnOpenTransaction() {
        ProducerEpoch producer = init(TXN);

        assertFailed(
                produce.commit(transactional(0, producer, 0, 1, TransactionalAppend.IN_TRANSACTION))
                        .get(0),
                AppendError.INVALID_TXN_STATE);
        assertDone(store.addPartitions(TXN, producer, List.of(p1), NOW));
        assertFailed(
                produce.commit(transactional(0, producer, 0, 1, TransactionalAppend.IN_TRANSACTION))
                        .get(0),
                AppendError.INVALID_TXN_STATE);
        assertFailed(
                produce.commit(transactional(
                                0, new ProducerEpoch(999_999, (short) 0), 0, 1, TransactionalAppend.IN_TRANSACTION))
                        .get(0),
                AppendError.INVALID_TXN_STATE);

        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 0, 0));
    }

    @Test
    void version2BatchesJoinTheTransactionAndItsEndBumpsTheEpoch() {
        ProducerEpoch producer = init(TXN);
        appendAll(transactional(0, producer, 0, 2, TransactionalAppend.JOINS_TRANSACTION));
        appendAll(transactional(1, producer, 0, 1, TransactionalAppend.JOINS_TRANSACTION));
        TransactionDescription open = store.transaction(TXN).orElseThrow();
        assertThat(open.state()).isEqualTo(TransactionState.ONGOING);
        assertThat(open.partitions()).containsExactlyInAnyOrder(p0, p1);
        assertThat(open.startedAtMs()).isGreaterThanOrEqualTo(0);

        TransactionOutcome.Done done = assertDone(store.endTransaction(TXN, producer, true, true, NOW));
        TransactionOutcome.Done retried = assertDone(store.endTransaction(TXN, producer, true, true, NOW));

        ProducerEpoch next = new ProducerEpoch(producer.producerId(), (short) (producer.epoch() + 1));
        assertThat(done.producer()).isEqualTo(next);
        assertThat(done.markers()).hasSize(2);
        assertThat(retried.producer()).isEqualTo(next);
        assertThat(retried.markers()).isEmpty();
        assertRefused(store.endTransaction(TXN, producer, false, true, NOW), TransactionError.PRODUCER_FENCED);
        // The next transaction, at the new epoch, starts its sequences again.
        appendAll(transactional(0, next, 0, 1, TransactionalAppend.JOINS_TRANSACTION));
        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 3, 4));
        // Aborting with nothing open only bumps the epoch (version 2 clients do so to recover).
        assertDone(store.endTransaction(TXN, next, false, true, NOW));
        ProducerEpoch third = store.transaction(TXN).orElseThrow().producer();
        assertThat(assertDone(store.endTransaction(TXN, third, false, true, NOW))
                        .markers())
                .isEmpty();
    }

    /**
     * A retry of a batch whose transaction has ended, at the epoch it was sent with (a version 1 end
     * keeps the epoch), is not answered as stored: the answer would tell the producer that a batch of
     * its next transaction is in it, which begins nothing, and its EndTxn(commit) then finds no open
     * transaction (issue 27: "has no open transaction to commit (state CompleteCommit)"). It is
     * refused, so the producer aborts; a retry within the open transaction is still a duplicate.
     */
    @Test
    void aRetryOfABatchOfAnEndedTransactionIsNotAnsweredAsStoredInTheNextOne() {
        ProducerEpoch producer = init(TXN);
        appendAll(transactional(0, producer, 0, 2, TransactionalAppend.JOINS_TRANSACTION));
        assertDone(store.endTransaction(TXN, producer, true, false, NOW));

        AppendResult retried = produce.commit(transactional(0, producer, 0, 2, TransactionalAppend.JOINS_TRANSACTION))
                .get(0);

        assertFailed(retried, AppendError.INVALID_TXN_STATE);
        assertThat(store.transaction(TXN).orElseThrow().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        ProducerEpoch next = assertDone(store.endTransaction(TXN, producer, false, true, NOW))
                .producer();
        appendAll(transactional(0, next, 0, 1, TransactionalAppend.JOINS_TRANSACTION));
        assertThat(produce.commit(transactional(0, next, 0, 1, TransactionalAppend.JOINS_TRANSACTION)))
                .containsExactly(new AppendResult.Duplicate(3, 0));
        assertDone(store.endTransaction(TXN, next, true, true, NOW));
        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 5, 5));
    }

    @Test
    void aRepeatedEndOfVersion1IsAnsweredAndTheOtherDecisionRefused() {
        ProducerEpoch producer = init(TXN);
        assertDone(store.addPartitions(TXN, producer, List.of(p0), NOW));
        appendAll(transactional(0, producer, 0, 1, TransactionalAppend.IN_TRANSACTION));
        assertThat(assertDone(store.endTransaction(TXN, producer, true, false, NOW))
                        .markers())
                .hasSize(1);

        assertThat(assertDone(store.endTransaction(TXN, producer, true, false, NOW))
                        .markers())
                .isEmpty();
        assertRefused(store.endTransaction(TXN, producer, false, false, NOW), TransactionError.INVALID_TXN_STATE);
        assertThat(store.offsets(p0).highWatermark()).isEqualTo(2);
    }

    @Test
    void theOpenTransactionsAreListedWithoutTheIdleIds() {
        ProducerEpoch open =
                assertDone(store.initProducer(TXN, 1_000, null, NOW)).producer();
        ProducerEpoch ended = init("txn-b");
        init("txn-c");
        assertDone(store.addPartitions(TXN, open, List.of(p0), NOW));
        assertDone(store.addOffsets("txn-b", ended, GROUP, NOW));
        assertDone(store.endTransaction("txn-b", ended, false, false, NOW));

        assertThat(store.openTransactions()).containsExactly(new OpenTransaction(TXN, open, NOW.toEpochMilli(), 1_000));
    }

    /** The caller decides that a transaction ran too long, on its own clock: the store compares no times. */
    @Test
    void aTimedOutTransactionIsAbortedOnceAndItsProducerFenced() {
        ProducerEpoch producer =
                assertDone(store.initProducer(TXN, 1_000, null, NOW)).producer();
        assertDone(store.addPartitions(TXN, producer, List.of(p0), NOW));
        appendAll(transactional(0, producer, 0, 1, TransactionalAppend.IN_TRANSACTION));
        OpenTransaction open = store.openTransactions().get(0);
        Instant later = NOW.plusMillis(2_000);

        assertRefused(
                store.abortExpired(TXN, producer, open.startedAtMs() - 1, later), TransactionError.INVALID_TXN_STATE);
        TransactionOutcome.Done done =
                assertDone(store.abortExpired(TXN, producer, open.startedAtMs(), NOW.minusMillis(5_000)));

        assertThat(done.producer().epoch()).isEqualTo((short) 1);
        assertThat(done.markers())
                .singleElement()
                .satisfies(marker -> assertThat(marker.commit()).isFalse());
        assertThat(store.openTransactions()).isEmpty();
        assertRefused(store.abortExpired(TXN, producer, open.startedAtMs(), later), TransactionError.PRODUCER_FENCED);
        assertRefused(
                store.abortExpired(TXN, done.producer(), open.startedAtMs(), later),
                TransactionError.INVALID_TXN_STATE);
        assertRefused(store.endTransaction(TXN, producer, true, false, later), TransactionError.PRODUCER_FENCED);
        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 2, 2));
    }

    @Test
    void anOperatorsMarkerEndsATransactionOnOnePartition() {
        init(TXN);
        ProducerEpoch producer = init(TXN);
        assertDone(store.addPartitions(TXN, producer, List.of(p0, p1), NOW));
        appendAll(transactional(0, producer, 0, 1, TransactionalAppend.IN_TRANSACTION));
        appendAll(transactional(1, producer, 0, 1, TransactionalAppend.IN_TRANSACTION));

        TransactionOutcome.Done done = assertDone(store.writeMarker(p0, producer, false, 0, NOW));

        assertThat(done.markers()).singleElement().satisfies(marker -> {
            assertThat(marker.topicPartition()).isEqualTo(p0);
            assertThat(marker.offset()).isEqualTo(1);
        });
        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(0, 2, 2));
        assertThat(store.offsets(p1)).isEqualTo(new LogOffsets(0, 0, 1));
        assertThat(assertDone(store.writeMarker(p0, producer, false, 0, NOW)).markers())
                .isEmpty();
        assertRefused(
                store.writeMarker(p1, new ProducerEpoch(producer.producerId(), (short) 0), false, 0, NOW),
                TransactionError.PRODUCER_FENCED);
        assertThat(store.writeMarker(new TopicPartition("orders", 9), producer, false, 0, NOW))
                .isInstanceOf(TransactionOutcome.UnknownPartitions.class);
        assertThat(store.transaction(TXN).orElseThrow().partitions()).containsExactly(p1);
    }

    @Test
    void addingAnUnknownPartitionAddsNone() {
        ProducerEpoch producer = init(TXN);
        TopicPartition ghost = new TopicPartition("ghost", 0);

        assertThat(store.addPartitions(TXN, producer, List.of(p0, ghost), NOW))
                .isEqualTo(new TransactionOutcome.UnknownPartitions(Set.of(ghost)));

        TransactionDescription described = store.transaction(TXN).orElseThrow();
        assertThat(described.partitions()).isEmpty();
        assertThat(described.state()).isEqualTo(TransactionState.EMPTY);
    }

    @Test
    void retentionAndProducerExpiryKeepTheOpenTransactionConsistent() {
        ProducerEpoch producer = init(TXN);
        assertDone(store.addPartitions(TXN, producer, List.of(p0), NOW));
        produce.commit(produce.batch(topic, 0, 2));
        appendAll(transactional(0, producer, 0, 2, TransactionalAppend.IN_TRANSACTION));
        assertDone(store.endTransaction(TXN, producer, false, false, NOW)); // marker at 4
        assertDone(store.addPartitions(TXN, producer, List.of(p0), NOW));
        appendAll(transactional(0, producer, 2, 1, TransactionalAppend.IN_TRANSACTION)); // 5, open

        store.expireProducers(NOW.plus(Duration.ofDays(365)));
        store.truncateLog(p0, 3, NOW);

        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(3, 5, 6));
        store.truncateLog(p0, 5, NOW);
        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(5, 5, 6));
        assertThat(store.entries(List.of(new BatchesQuery(p0, 0, 10))).get(0))
                .extracting(LogEntry::baseOffset)
                .containsExactly(5L);
        assertThat(assertDone(store.endTransaction(TXN, producer, true, false, NOW))
                        .markers())
                .singleElement()
                .satisfies(marker -> assertThat(marker.offset()).isEqualTo(6));
        assertThat(store.offsets(p0)).isEqualTo(new LogOffsets(5, 7, 7));
    }

    @Test
    void anEndRacingALateBatchEitherIncludesItOrRefusesIt() throws Exception {
        for (int round = 0; round < 10; round++) {
            String id = "race-" + round;
            ProducerEpoch producer = init(id);
            assertDone(store.addPartitions(id, producer, List.of(p0), NOW));
            appendAll(transactional(0, producer, 0, 1, TransactionalAppend.IN_TRANSACTION));
            List<Callable<Object>> tasks = new ArrayList<>();
            tasks.add(() -> store.endTransaction(id, producer, true, false, NOW));
            tasks.add(() -> produce.commit(transactional(0, producer, 1, 1, TransactionalAppend.IN_TRANSACTION))
                    .get(0));
            List<Object> results = runConcurrently(tasks);

            TransactionMarker marker =
                    ((TransactionOutcome.Done) results.get(0)).markers().get(0);
            AppendResult late = (AppendResult) results.get(1);
            if (late instanceof AppendResult.Appended appended) {
                assertThat(appended.baseOffset()).isLessThan(marker.offset());
            } else {
                assertFailed(late, AppendError.INVALID_TXN_STATE);
            }
            LogOffsets offsets = store.offsets(p0);
            assertThat(offsets.lastStableOffset()).isEqualTo(offsets.highWatermark());
        }
    }

    @Test
    void pendingOffsetsAtAStaleCoordinatorEpochAreRefusedAndBeginNoTransaction() {
        ProducerEpoch producer = init(TXN);
        CoordinatorLease stale = coordinator();
        CoordinatorLease current = store.acquireCoordinator(
                        GROUP, "agent-b", stale.expiresAt().plusMillis(1), LEASE_TTL, Duration.ZERO)
                .orElseThrow();

        assertRefused(
                store.commitPendingOffsets(TXN, producer, stale, Map.of(p0, offset(3)), NOW),
                TransactionError.NOT_COORDINATOR);
        assertThat(store.fetchOffsets(GROUP).pending()).isEmpty();
        assertThat(store.transaction(TXN).orElseThrow().state()).isEqualTo(TransactionState.EMPTY);
        assertDone(store.commitPendingOffsets(TXN, producer, current, Map.of(p0, offset(4)), NOW));
        assertThat(store.fetchOffsets(GROUP).pending()).containsExactly(p0);
    }

    @Test
    void pendingOffsetsKeptUnderTheLeaseCommitAfterTheLeaseMoved() {
        ProducerEpoch producer = init(TXN);
        CoordinatorLease first = coordinator();
        assertDone(store.commitPendingOffsets(TXN, producer, first, Map.of(p0, offset(3)), NOW));
        store.acquireCoordinator(GROUP, "agent-b", first.expiresAt().plusMillis(1), LEASE_TTL, Duration.ZERO)
                .orElseThrow();

        assertDone(store.endTransaction(TXN, producer, true, false, NOW));

        assertThat(store.committedOffsets(GROUP)).isEqualTo(Map.of(p0, offset(3)));
    }

    // ----- helpers

    /** The coordinator lease of {@link #GROUP}, taken (or renewed) by agent-a at {@link #NOW}. */
    private CoordinatorLease coordinator() {
        return store.acquireCoordinator(GROUP, "agent-a", NOW, LEASE_TTL, Duration.ZERO)
                .orElseThrow();
    }

    private ProducerEpoch init(String transactionalId) {
        return assertDone(store.initProducer(transactionalId, TIMEOUT_MS, null, NOW))
                .producer();
    }

    private io.floe.core.metadata.BatchAppend transactional(
            int partition, ProducerEpoch producer, int baseSequence, int records, TransactionalAppend mode) {
        return produce.transactional(topic, partition, producer, baseSequence, records, mode);
    }

    private void appendAll(io.floe.core.metadata.BatchAppend batch) {
        assertThat(produce.commit(batch)).singleElement().isInstanceOf(AppendResult.Appended.class);
    }

    private static CommittedOffset offset(long offset) {
        return new CommittedOffset(offset, CommittedOffset.NO_LEADER_EPOCH, "", NOW.toEpochMilli());
    }

    private static TransactionOutcome.Done assertDone(TransactionOutcome outcome) {
        assertThat(outcome).isInstanceOf(TransactionOutcome.Done.class);
        return (TransactionOutcome.Done) outcome;
    }

    private static void assertRefused(TransactionOutcome outcome, TransactionError error) {
        assertThat(outcome)
                .isInstanceOfSatisfying(
                        TransactionOutcome.Refused.class,
                        refused -> assertThat(refused.error())
                                .as(refused.message())
                                .isEqualTo(error));
    }
}
