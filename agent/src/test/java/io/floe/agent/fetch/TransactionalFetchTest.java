package io.floe.agent.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.AgentConfig;
import io.floe.agent.cache.ObjectCache;
import io.floe.agent.cluster.AgentNode;
import io.floe.agent.cluster.Cluster;
import io.floe.agent.produce.CommittedObject;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.ObjectCommit;
import io.floe.core.metadata.ProducerState;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fetch service's read path of transactions on a real SQLite store's transactions: this agent's
 * commits of transactional batches and the markers that ending them wrote, served to read-committed
 * and read-uncommitted fetches, and loaded afresh by another agent's views.
 */
class TransactionalFetchTest {

    private static final TopicPartition TP = new TopicPartition("events", 0);
    private static final String TRANSACTIONAL_ID = "tx";
    private static final Instant NOW = Instant.ofEpochMilli(ProduceFixture.DEFAULT_TIMESTAMP);

    private final Concurrency concurrency = Concurrency.threads();

    @TempDir
    Path dir;

    private MetadataStore sqlite;
    private CountingStore store;
    private ProduceFixture produce;
    private LocalObjectStore objects;
    private ScheduledExecutorService scheduler;
    private FetchService fetch;
    private Topic topic;
    private ProducerEpoch producer;
    private int sequence;

    @BeforeEach
    void start() {
        sqlite = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        store = new CountingStore(sqlite);
        produce = new ProduceFixture(sqlite);
        objects = new LocalObjectStore(dir.resolve("objects"));
        topic = sqlite.createTopic(new NewTopic("events", 1, Map.of()));
        scheduler = concurrency.scheduler("test-scheduler");
        fetch = fetchService();
        producer =
                done(sqlite.initProducer(TRANSACTIONAL_ID, 60_000, null, NOW)).producer();
    }

    /** A fetch service with no views yet, as on an agent just started. */
    private FetchService fetchService() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        return new FetchService(
                AgentConfig.defaults(),
                new PartitionLogs(store, true),
                objects,
                new ObjectCache(1 << 20, meters),
                new Cluster("test", new AgentNode(0, "127.0.0.1", 9092)),
                scheduler,
                concurrency,
                meters);
    }

    @AfterEach
    void stop() {
        fetch.close();
        scheduler.shutdownNow();
        objects.close();
        sqlite.close();
    }

    @Test
    void readCommittedSeesATransactionOnlyOnceItsCommitMarkerIsWritten() {
        append(3, false);
        begin();
        append(2, true);
        append(2, false);

        PartitionResult.Data uncommitted = fetchNow(FetchIsolation.READ_UNCOMMITTED, 0);
        assertThat(baseOffsets(uncommitted)).containsExactly(0L, 3L, 5L);
        assertThat(uncommitted.offsets())
                .as("a view begun by a commit vouches for no transaction below it; read uncommitted never asks")
                .isEqualTo(new LogOffsets(0, 0, 7));
        PartitionResult.Data committed = fetchNow(FetchIsolation.READ_COMMITTED, 0);
        assertThat(baseOffsets(committed)).as("below the open transaction").containsExactly(0L);
        assertThat(committed.offsets()).isEqualTo(new LogOffsets(0, 3, 7));
        assertThat(committed.abortedTransactions()).isEmpty();

        CompletableFuture<FetchResult> waiting =
                fetch.fetch(query(FetchIsolation.READ_COMMITTED, 3, Duration.ofMinutes(5)));
        assertThat(waiting).as("nothing stable to read from 3").isNotDone();
        fetch.onMarkers(end(true));

        PartitionResult.Data woken =
                (PartitionResult.Data) waiting.join().partitions().get(0);
        assertThat(woken.offsets()).isEqualTo(new LogOffsets(0, 8, 8));
        List<RecordBatch> batches = batches(woken);
        assertThat(batches).extracting(RecordBatch::baseOffset).containsExactly(3L, 5L, 7L);
        RecordBatch marker = batches.get(2);
        assertThat(marker.isControlBatch()).isTrue();
        assertThat(marker.producerId()).isEqualTo(producer.producerId());
        assertThat(marker.producerEpoch()).isEqualTo(producer.epoch());
        assertThat(EndTransactionMarker.deserialize(marker.iterator().next()).controlType())
                .isEqualTo(ControlRecordType.COMMIT);
    }

    @Test
    void readCommittedAnswersCarryTheAbortedTransactionsTheyMeet() {
        begin();
        append(2, true);
        append(2, false);
        fetch.onMarkers(end(false));
        append(1, false);

        PartitionResult.Data committed = fetchNow(FetchIsolation.READ_COMMITTED, 0);
        assertThat(baseOffsets(committed)).containsExactly(0L, 2L, 4L, 5L);
        assertThat(committed.offsets()).isEqualTo(new LogOffsets(0, 6, 6));
        assertThat(committed.abortedTransactions())
                .containsExactly(new AbortedTransaction(producer.producerId(), 0, 4));
        assertThat(fetchNow(FetchIsolation.READ_UNCOMMITTED, 0).abortedTransactions())
                .isEmpty();

        int abortedReads = store.calls(MetadataOperation.ABORTED_TRANSACTIONS);
        assertThat(fetchNow(FetchIsolation.READ_COMMITTED, 5).abortedTransactions())
                .isEmpty();
        assertThat(store.calls(MetadataOperation.ABORTED_TRANSACTIONS))
                .as("the view saw everything from 5 on: no abort")
                .isEqualTo(abortedReads);
    }

    @Test
    void readCommittedOnAPartitionNoTransactionTouchedAsksTheStoreOnceAViewKnowsIt() {
        append(3, false);
        fetchNow(FetchIsolation.READ_COMMITTED, 0);
        append(3, false);
        int offsetReads = store.calls(MetadataOperation.OFFSETS);
        int abortedReads = store.calls(MetadataOperation.ABORTED_TRANSACTIONS);

        PartitionResult.Data committed = fetchNow(FetchIsolation.READ_COMMITTED, 3);

        assertThat(baseOffsets(committed)).containsExactly(3L);
        assertThat(committed.offsets()).isEqualTo(new LogOffsets(0, 6, 6));
        assertThat(store.calls(MetadataOperation.OFFSETS)).isEqualTo(offsetReads);
        assertThat(store.calls(MetadataOperation.ABORTED_TRANSACTIONS)).isEqualTo(abortedReads);
    }

    @Test
    void anAbortWakesAWaitingFetchAndAFreshAgentLoadsItFromTheStore() {
        append(3, false);
        begin();
        append(2, true);
        append(2, false);
        assertThat(fetchNow(FetchIsolation.READ_COMMITTED, 0).offsets()).isEqualTo(new LogOffsets(0, 3, 7));

        CompletableFuture<FetchResult> waiting =
                fetch.fetch(query(FetchIsolation.READ_COMMITTED, 3, Duration.ofMinutes(5)));
        assertThat(waiting).isNotDone();
        fetch.onMarkers(end(false));
        PartitionResult.Data woken =
                (PartitionResult.Data) waiting.join().partitions().get(0);
        assertThat(baseOffsets(woken)).containsExactly(3L, 5L, 7L);
        assertThat(woken.offsets()).isEqualTo(new LogOffsets(0, 8, 8));
        assertThat(woken.abortedTransactions()).containsExactly(new AbortedTransaction(producer.producerId(), 3, 7));

        fetch.close();
        fetch = fetchService();
        PartitionResult.Data fresh = fetchNow(FetchIsolation.READ_COMMITTED, 0);
        assertThat(baseOffsets(fresh)).containsExactly(0L, 3L, 5L, 7L);
        assertThat(fresh.abortedTransactions()).containsExactly(new AbortedTransaction(producer.producerId(), 3, 7));
    }

    @Test
    void aFreshViewOfAnOpenTransactionLearnsItFromTheStore() {
        begin();
        append(2, false);
        append(2, true);
        fetch.close();
        fetch = fetchService();

        PartitionResult.Data committed = fetchNow(FetchIsolation.READ_COMMITTED, 0);
        assertThat(baseOffsets(committed)).containsExactly(0L);
        assertThat(committed.offsets()).isEqualTo(new LogOffsets(0, 2, 4));
        fetch.onMarkers(end(true));
        PartitionResult.Data after = fetchNow(FetchIsolation.READ_COMMITTED, 2);
        assertThat(baseOffsets(after)).containsExactly(2L, 4L);
        assertThat(after.offsets()).isEqualTo(new LogOffsets(0, 5, 5));
        assertThat(after.abortedTransactions()).isEmpty();
    }

    @Test
    void aMarkerWrittenUnseenIsServedOnceTheCoordinatorSaysItMayHaveBeen() {
        append(2, false);
        begin();
        append(2, true);
        assertThat(fetchNow(FetchIsolation.READ_COMMITTED, 0).offsets()).isEqualTo(new LogOffsets(0, 2, 4));
        CompletableFuture<FetchResult> waiting =
                fetch.fetch(query(FetchIsolation.READ_COMMITTED, 2, Duration.ofMinutes(5)));
        end(true); // applied by the store, but its answer was lost: the markers never reach the views

        fetch.onMarkersMayHaveBeenWritten();

        PartitionResult.Data woken =
                (PartitionResult.Data) waiting.join().partitions().get(0);
        assertThat(woken.offsets()).isEqualTo(new LogOffsets(0, 5, 5));
        assertThat(baseOffsets(woken)).containsExactly(2L, 4L);
        assertThat(fetchNow(FetchIsolation.READ_UNCOMMITTED, 0).offsets()).isEqualTo(new LogOffsets(0, 5, 5));
    }

    /** Adds TP to the producer's transaction (AddPartitionsToTxn), beginning it. */
    private void begin() {
        done(sqlite.addPartitions(TRANSACTIONAL_ID, producer, List.of(TP), NOW));
    }

    /** Ends the producer's transaction (EndTxn); the markers the store wrote, one on TP. */
    private List<TransactionMarker> end(boolean commit) {
        List<TransactionMarker> markers = done(sqlite.endTransaction(TRANSACTIONAL_ID, producer, commit, false, NOW))
                .markers();
        assertThat(markers)
                .singleElement()
                .extracting(TransactionMarker::topicPartition)
                .isEqualTo(TP);
        return markers;
    }

    private static TransactionOutcome.Done done(TransactionOutcome outcome) {
        assertThat(outcome).isInstanceOf(TransactionOutcome.Done.class);
        return (TransactionOutcome.Done) outcome;
    }

    /** Commits a batch of {@code records} records (of the producer's transaction if asked) and tells the fetch service. */
    private void append(int records, boolean transactional) {
        SimpleRecord[] values = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            values[i] = new SimpleRecord(1_000L + i, null, ("v" + i).getBytes());
        }
        ByteBuffer bytes = transactional
                ? MemoryRecords.withTransactionalRecords(
                                Compression.NONE, producer.producerId(), producer.epoch(), sequence, values)
                        .buffer()
                : MemoryRecords.withRecords(Compression.NONE, values).buffer();
        ProducerState state = transactional
                ? new ProducerState(producer.producerId(), producer.epoch(), sequence, sequence + records - 1)
                : ProducerState.NONE;
        if (transactional) {
            sequence += records;
        }
        ObjectKey key = produce.registerUpload();
        objects.put(key, bytes.duplicate());
        ByteRange range = new ByteRange(0, bytes.remaining());
        CommitOutcome outcome = sqlite.commit(new ObjectCommit(
                key,
                bytes.remaining(),
                List.of(new BatchAppend(
                        TP,
                        topic.id(),
                        range,
                        records,
                        1_000L,
                        state,
                        transactional ? TransactionalAppend.IN_TRANSACTION : TransactionalAppend.NONE))));
        long base = ((AppendResult.Appended)
                        ((CommitOutcome.Committed) outcome).results().get(0))
                .baseOffset();
        BatchCoordinate batch = sqlite.batches(TP, base, 1).get(0);
        fetch.onCommitted(new CommittedObject(List.of(new CommittedObject.Appended(
                batch, 0, transactional ? producer.producerId() : ProducerState.NO_PRODUCER_ID))));
    }

    private static FetchQuery query(FetchIsolation isolation, long offset, Duration maxWait) {
        return new FetchQuery(List.of(new PartitionQuery(TP, offset, 1 << 20)), maxWait, 1, 1 << 20, false, isolation);
    }

    private PartitionResult.Data fetchNow(FetchIsolation isolation, long offset) {
        PartitionResult result = fetch.fetch(query(isolation, offset, Duration.ZERO))
                .join()
                .partitions()
                .get(0);
        assertThat(result).isInstanceOf(PartitionResult.Data.class);
        return (PartitionResult.Data) result;
    }

    private static List<RecordBatch> batches(PartitionResult.Data data) {
        List<RecordBatch> batches = new ArrayList<>();
        MemoryRecords.readableRecords(data.contiguous()).batches().forEach(batches::add);
        return batches;
    }

    private static List<Long> baseOffsets(PartitionResult.Data data) {
        return batches(data).stream().map(RecordBatch::baseOffset).toList();
    }
}
