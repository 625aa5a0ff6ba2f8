package io.floe.agent.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.produce.CommittedObject;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogEntry;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-memory views on a real SQLite store: begun by commits, shared budget, dropped when batches
 * move, and their last stable offsets as the store's transactions open and end.
 */
class PartitionLogsTest {

    private static final TopicPartition P0 = new TopicPartition("events", 0);
    private static final String TRANSACTIONAL_ID = "tx";
    private static final Instant NOW = Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP);

    @TempDir
    Path dir;

    private MetadataStore store;
    private ProduceFixture produce;
    private Topic topic;
    /** The producer of {@link #commitTransactional}'s transaction. */
    private ProducerEpoch producer;

    @BeforeEach
    void openStore() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        produce = new ProduceFixture(store);
        topic = store.createTopic(new NewTopic("events", 8, Map.of()));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aCommitToAPartitionWithoutAViewBeginsOneThatIndexesItsBatches() {
        PartitionLogs logs = new PartitionLogs(store, store.embedded());
        commitAndTell(logs, 0, 3);

        PartitionLog view = logs.log(P0);
        assertThat(view.indexStart())
                .as("the index covers the partition from its first commit")
                .isZero();
        assertThat(view.offsets())
                .as("it vouches for no transaction below its first commit")
                .isEqualTo(new LogOffsets(0, 0, 30));
        assertThat(logs.stableOffsets(P0)).as("the store does").isEqualTo(new LogOffsets(0, 30));
        assertThat(view.knowsOpenTransactions()).isTrue();
        assertThat(logs.entries(P0, 0, Long.MAX_VALUE, null)).isEqualTo(store.batches(P0, 0, 100));
        assertThat(logs.indexedBatches()).isEqualTo(3);
    }

    @Test
    void viewsAreDroppedBeforeAFetchServesFromThemOnceTheStoreMovedBatches() {
        PartitionLogs logs = new PartitionLogs(store, store.embedded());
        commitAndTell(logs, 0, 3);
        List<PartitionQuery> fetch = List.of(new PartitionQuery(P0, 0, 1 << 20));
        logs.checkRewrites(fetch);
        assertThat(logs.indexedBatches()).as("nothing moved").isEqualTo(3);

        store.deleteRecords(P0, 15);
        assertThat(logs.offsets(P0).logStartOffset())
                .as("the view has not looked yet")
                .isZero();
        logs.checkRewrites(fetch);

        assertThat(logs.indexedBatches()).isZero();
        assertThat(logs.offsets(P0)).as("reloaded from the store").isEqualTo(new LogOffsets(15, 30));
        assertThat(logs.log(P0).indexStart()).isEqualTo(30);
    }

    @Test
    void aFetchThatReadsNoIndexedBatchesDoesNotAskTheStore() {
        PartitionLogs logs = new PartitionLogs(store, store.embedded());
        commitAndTell(logs, 0, 2);
        store.deleteRecords(P0, 5);

        logs.checkRewrites(List.of(new PartitionQuery(P0, 20, 1 << 20))); // at the end: nothing to serve
        assertThat(logs.indexedBatches()).isEqualTo(2);
        logs.checkRewrites(List.of(new PartitionQuery(new TopicPartition("events", 1), 0, 1 << 20))); // no view
        assertThat(logs.indexedBatches()).isEqualTo(2);
    }

    @Test
    void indexesShareOneBudgetAndKeepTheirNewestBatches() {
        PartitionLogs logs = new PartitionLogs(store, store.embedded(), 64);
        commitAndTell(logs, 0, 100);
        assertThat(logs.log(P0).offsets().highWatermark()).isEqualTo(1000);
        assertThat(logs.indexedBatches()).as("one view gets the whole budget").isEqualTo(64);
        assertThat(logs.log(P0).indexStart()).isEqualTo(360);

        for (int partition = 1; partition < 8; partition++) {
            commitAndTell(logs, partition, 1);
        }
        commitAndTell(logs, 0, 1);
        assertThat(logs.log(P0).indexedEntries())
                .as("eight views: the least share each")
                .isEqualTo(PartitionLogs.INDEX_BATCHES_MIN);
        assertThat(logs.entries(P0, 0, Long.MAX_VALUE, null))
                .as("below the index, from the store")
                .extracting(LogEntry::baseOffset)
                .startsWith(0L, 10L);
    }

    @Test
    void aViewLoadedWhileAnotherWasDroppedServesOnceAndIsNotKept() {
        AtomicReference<PartitionLogs> views = new AtomicReference<>();
        AtomicBoolean first = new AtomicBoolean(true);
        // While the first load of P0's markers is in flight, a commit whose outcome this agent never learned
        // lands and its view of P0 is dropped, as SegmentCommit's unknown outcome does.
        MetadataStore racing = new ForwardingMetadataStore(store) {
            @Override
            public LogOffsets offsets(TopicPartition topicPartition) {
                LogOffsets result = super.offsets(topicPartition);
                if (first.getAndSet(false)) {
                    produce.commit(produce.batch(topic, 0, 10));
                    views.get().forget(P0);
                }
                return result;
            }
        };
        PartitionLogs logs = new PartitionLogs(racing, racing.embedded());
        views.set(logs);

        assertThat(logs.offsets(P0)).as("this call serves the markers it read").isEqualTo(new LogOffsets(0, 0));
        assertThat(logs.offsets(P0))
                .as("but they were not kept: the next use reads again")
                .isEqualTo(new LogOffsets(0, 10));
    }

    @Test
    void aViewLoadedWithAnOpenTransactionLearnsItFromTheProducersAndFollowsItsMarker() {
        CountingStore counting = new CountingStore(store);
        commit(0, 2);
        commitTransactional(20);
        PartitionLogs logs = new PartitionLogs(counting, true);
        Set<TopicPartition> woken = new HashSet<>();
        logs.onAppended(woken::addAll);

        assertThat(logs.offsets(P0)).isEqualTo(new LogOffsets(0, 20, 30));
        assertThat(logs.log(P0).knowsOpenTransactions()).isTrue();
        int reads = counting.calls(MetadataOperation.OFFSETS);
        assertThat(logs.stableOffsets(P0)).isEqualTo(new LogOffsets(0, 20, 30));
        assertThat(counting.calls(MetadataOperation.OFFSETS))
                .as("an embedded store's view that knows every open transaction asks nothing")
                .isEqualTo(reads);

        List<TransactionMarker> markers = end(true);
        logs.onMarkers(markers);

        assertThat(woken).containsExactly(P0);
        assertThat(logs.offsets(P0)).isEqualTo(new LogOffsets(0, 31, 31));
        assertThat(logs.entries(P0, 20, Long.MAX_VALUE, null))
                .as("below the index from the store, then the marker from the index")
                .extracting(LogEntry::baseOffset)
                .containsExactly(20L, 30L);
        assertThat(logs.entries(P0, 30, Long.MAX_VALUE, null)).isEqualTo(markers);
    }

    @Test
    void aMarkerForAPartitionWithoutAViewOnlyWakesItsFetches() {
        commitTransactional(0);
        PartitionLogs logs = new PartitionLogs(store, true);
        Set<TopicPartition> woken = new HashSet<>();
        logs.onAppended(woken::addAll);

        logs.onMarkers(end(false));

        assertThat(woken).containsExactly(P0);
        assertThat(logs.offsets(P0)).as("loaded on first use").isEqualTo(new LogOffsets(0, 11, 11));
    }

    @Test
    void aCommittedTransactionalBatchHoldsTheStableOffsetUntilItsMarker() {
        commit(0, 1);
        PartitionLogs logs = new PartitionLogs(store, true);
        assertThat(logs.offsets(P0)).isEqualTo(new LogOffsets(0, 10));

        BatchCoordinate transactional = commitTransactional(10);
        logs.onCommitted(
                new CommittedObject(List.of(new CommittedObject.Appended(transactional, 0, producer.producerId()))));
        commitAndTell(logs, 0, 1);
        assertThat(logs.stableOffsets(P0)).isEqualTo(new LogOffsets(0, 10, 30));

        logs.onMarkers(end(true));
        assertThat(logs.stableOffsets(P0)).isEqualTo(new LogOffsets(0, 31, 31));
    }

    @Test
    void onAStoreSharedWithOtherAgentsAnUnstableViewAsksTheStoreAndSeesTheirMarkers() {
        CountingStore counting = new CountingStore(store);
        commitTransactional(0);
        PartitionLogs logs = new PartitionLogs(counting, false);
        assertThat(logs.stableOffsets(P0)).isEqualTo(new LogOffsets(0, 0, 10));
        assertThat(logs.mayHaveAborts(P0, 10)).isFalse();

        end(false); // by another agent: this one is not told
        int reads = counting.calls(MetadataOperation.OFFSETS);
        assertThat(logs.offsets(P0)).as("the view as it was fed").isEqualTo(new LogOffsets(0, 0, 10));
        assertThat(logs.stableOffsets(P0)).isEqualTo(new LogOffsets(0, 11, 11));
        assertThat(counting.calls(MetadataOperation.OFFSETS)).isGreaterThan(reads);
        assertThat(logs.mayHaveAborts(P0, 0))
                .as("the reloaded view knows nothing below")
                .isTrue();
        assertThat(logs.abortedTransactions(P0, 0, 11))
                .containsExactly(new AbortedTransaction(producer.producerId(), 0, 10));

        reads = counting.calls(MetadataOperation.OFFSETS);
        logs.stableOffsets(P0);
        assertThat(counting.calls(MetadataOperation.OFFSETS))
                .as("a stable view asks nothing")
                .isEqualTo(reads);
    }

    /** Commits {@code batches} batches of 10 records to {@code partition} without telling any view. */
    private void commit(int partition, int batches) {
        for (int i = 0; i < batches; i++) {
            produce.commit(produce.batch(topic, partition, 10));
        }
    }

    /**
     * Begins a transaction of a new producer on P0 (AddPartitionsToTxn) and commits its first batch, of 10
     * records, which must land at {@code offset}.
     */
    private BatchCoordinate commitTransactional(long offset) {
        producer = done(store.initProducer(TRANSACTIONAL_ID, 60_000, null, NOW)).producer();
        done(store.addPartitions(TRANSACTIONAL_ID, producer, List.of(P0), NOW));
        AppendResult result = produce.commit(
                        produce.transactional(topic, 0, producer, 0, 10, TransactionalAppend.IN_TRANSACTION))
                .get(0);
        assertThat(((AppendResult.Appended) result).baseOffset()).isEqualTo(offset);
        return store.batches(P0, offset, 1).get(0);
    }

    /** Ends the producer's transaction (EndTxn); the markers the store wrote, one on P0. */
    private List<TransactionMarker> end(boolean commit) {
        List<TransactionMarker> markers = done(store.endTransaction(TRANSACTIONAL_ID, producer, commit, false, NOW))
                .markers();
        assertThat(markers)
                .singleElement()
                .extracting(TransactionMarker::topicPartition)
                .isEqualTo(P0);
        return markers;
    }

    private static TransactionOutcome.Done done(TransactionOutcome outcome) {
        assertThat(outcome).isInstanceOf(TransactionOutcome.Done.class);
        return (TransactionOutcome.Done) outcome;
    }

    /** Commits {@code batches} batches of 10 records to {@code partition}, one object each, and tells the views. */
    private void commitAndTell(PartitionLogs logs, int partition, int batches) {
        TopicPartition tp = new TopicPartition(topic.name(), partition);
        for (int i = 0; i < batches; i++) {
            long base = ((AppendResult.Appended)
                            produce.commit(produce.batch(topic, partition, 10)).get(0))
                    .baseOffset();
            BatchCoordinate batch = store.batches(tp, base, 1).get(0);
            logs.onCommitted(new CommittedObject(List.of(new CommittedObject.Appended(batch, 0))));
        }
    }
}
