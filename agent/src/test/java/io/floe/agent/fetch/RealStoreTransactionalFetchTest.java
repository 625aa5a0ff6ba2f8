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
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchAppend;
import io.floe.core.metadata.CommitOutcome;
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
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read path of transactions on the real SQLite store's transactions. */
class RealStoreTransactionalFetchTest {

    private static final TopicPartition TP = new TopicPartition("events", 0);
    private static final Instant NOW = Instant.ofEpochMilli(1_700_000_000_000L);

    @TempDir
    Path dir;

    private MetadataStore store;
    private ProduceFixture produce;
    private LocalObjectStore objects;
    private ScheduledExecutorService scheduler;
    private FetchService fetch;
    private Topic topic;
    private ProducerEpoch producer;
    private int sequence;

    @BeforeEach
    void start() {
        store = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        produce = new ProduceFixture(store);
        objects = new LocalObjectStore(dir.resolve("objects"));
        topic = store.createTopic(new NewTopic("events", 1, Map.of()));
        Concurrency concurrency = Concurrency.threads();
        scheduler = concurrency.scheduler("test-scheduler");
        fetch = fetchService(concurrency);
        producer = ((TransactionOutcome.Done) store.initProducer("tx", 60_000, null, NOW)).producer();
    }

    private FetchService fetchService(Concurrency concurrency) {
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
        store.close();
    }

    @Test
    void committedAndAbortedTransactionsOnTheRealStore() {
        append(3, false);
        assertThat(store.addPartitions("tx", producer, List.of(TP), NOW)).isInstanceOf(TransactionOutcome.Done.class);
        append(2, true);
        append(2, false);
        assertThat(fetchNow(FetchIsolation.READ_COMMITTED, 0).offsets()).isEqualTo(new LogOffsets(0, 3, 7));
        assertThat(store.offsets(TP)).isEqualTo(new LogOffsets(0, 3, 7));

        CompletableFuture<FetchResult> waiting = fetch.fetch(new FetchQuery(
                List.of(new PartitionQuery(TP, 3, 1 << 20)),
                Duration.ofMinutes(5),
                1,
                1 << 20,
                false,
                FetchIsolation.READ_COMMITTED));
        assertThat(waiting).isNotDone();
        TransactionOutcome.Done ended =
                (TransactionOutcome.Done) store.endTransaction("tx", producer, false, false, NOW);
        fetch.onMarkers(ended.markers());
        PartitionResult.Data woken =
                (PartitionResult.Data) waiting.join().partitions().get(0);
        assertThat(baseOffsets(woken)).containsExactly(3L, 5L, 7L);
        assertThat(woken.offsets()).isEqualTo(new LogOffsets(0, 8, 8));
        assertThat(woken.abortedTransactions()).containsExactly(new AbortedTransaction(producer.producerId(), 3, 7));

        // A fresh agent's views load it all from the store.
        fetch.close();
        fetch = fetchService(Concurrency.threads());
        PartitionResult.Data fresh = fetchNow(FetchIsolation.READ_COMMITTED, 0);
        assertThat(baseOffsets(fresh)).containsExactly(0L, 3L, 5L, 7L);
        assertThat(fresh.abortedTransactions()).containsExactly(new AbortedTransaction(producer.producerId(), 3, 7));
    }

    @Test
    void aFreshViewOfAnOpenTransactionLearnsItFromTheRealStore() {
        assertThat(store.addPartitions("tx", producer, List.of(TP), NOW)).isInstanceOf(TransactionOutcome.Done.class);
        append(2, false);
        append(2, true);
        fetch.close();
        fetch = fetchService(Concurrency.threads());

        PartitionResult.Data committed = fetchNow(FetchIsolation.READ_COMMITTED, 0);
        assertThat(baseOffsets(committed)).containsExactly(0L);
        assertThat(committed.offsets()).isEqualTo(new LogOffsets(0, 2, 4));
        TransactionOutcome.Done ended =
                (TransactionOutcome.Done) store.endTransaction("tx", producer, true, false, NOW);
        fetch.onMarkers(ended.markers());
        PartitionResult.Data after = fetchNow(FetchIsolation.READ_COMMITTED, 2);
        assertThat(baseOffsets(after)).containsExactly(2L, 4L);
        assertThat(after.offsets()).isEqualTo(new LogOffsets(0, 5, 5));
        assertThat(after.abortedTransactions()).isEmpty();
    }

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
        CommitOutcome outcome = store.commit(new ObjectCommit(
                key,
                bytes.remaining(),
                List.of(new BatchAppend(
                        TP,
                        topic.id(),
                        new ByteRange(0, bytes.remaining()),
                        records,
                        1_000L,
                        state,
                        transactional ? TransactionalAppend.IN_TRANSACTION : TransactionalAppend.NONE))));
        AppendResult result = ((CommitOutcome.Committed) outcome).results().get(0);
        long base = ((AppendResult.Appended) result).baseOffset();
        BatchCoordinate batch = store.batches(TP, base, 1).get(0);
        fetch.onCommitted(new CommittedObject(List.of(new CommittedObject.Appended(
                batch, 0, transactional ? producer.producerId() : ProducerState.NO_PRODUCER_ID))));
    }

    private PartitionResult.Data fetchNow(FetchIsolation isolation, long offset) {
        PartitionResult result = fetch.fetch(new FetchQuery(
                        List.of(new PartitionQuery(TP, offset, 1 << 20)), Duration.ZERO, 0, 1 << 20, false, isolation))
                .join()
                .partitions()
                .get(0);
        assertThat(result).isInstanceOf(PartitionResult.Data.class);
        return (PartitionResult.Data) result;
    }

    private static List<Long> baseOffsets(PartitionResult.Data data) {
        List<Long> offsets = new ArrayList<>();
        MemoryRecords.readableRecords(data.contiguous())
                .batches()
                .forEach(b -> offsets.add(((RecordBatch) b).baseOffset()));
        return offsets;
    }
}
