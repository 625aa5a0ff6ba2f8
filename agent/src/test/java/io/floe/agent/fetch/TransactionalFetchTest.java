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
import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectKey;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.metadata.ProduceFixture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
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
 * The fetch service's read path of transactions: this agent's commits of transactional batches and the
 * markers its coordinator reports, served to read-committed and read-uncommitted fetches. The store's
 * transactions are stood in for by {@link TransactionalStore} over a real SQLite store until the SQL
 * store implements them.
 */
class TransactionalFetchTest {

    private static final TopicPartition TP = new TopicPartition("events", 0);
    private static final long PRODUCER = 7;

    @TempDir
    Path dir;

    private MetadataStore sqlite;
    private TransactionalStore store;
    private ProduceFixture produce;
    private LocalObjectStore objects;
    private ScheduledExecutorService scheduler;
    private FetchService fetch;
    private Topic topic;
    private int sequence;

    @BeforeEach
    void start() {
        sqlite = SqlMetadataStore.openSqlite(dir.resolve("metadata.db"));
        store = new TransactionalStore(sqlite);
        produce = new ProduceFixture(sqlite);
        objects = new LocalObjectStore(dir.resolve("objects"));
        topic = sqlite.createTopic(new NewTopic("events", 1, Map.of()));
        Concurrency concurrency = Concurrency.threads();
        scheduler = concurrency.scheduler("test-scheduler");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        fetch = new FetchService(
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
        fetch.onMarkers(List.of(store.end(topic, TP, PRODUCER, true)));

        PartitionResult.Data woken =
                (PartitionResult.Data) waiting.join().partitions().get(0);
        assertThat(woken.offsets()).isEqualTo(new LogOffsets(0, 8, 8));
        List<RecordBatch> batches = batches(woken);
        assertThat(batches).extracting(RecordBatch::baseOffset).containsExactly(3L, 5L, 7L);
        RecordBatch marker = batches.get(2);
        assertThat(marker.isControlBatch()).isTrue();
        assertThat(marker.producerId()).isEqualTo(PRODUCER);
        assertThat(EndTransactionMarker.deserialize(marker.iterator().next()).controlType())
                .isEqualTo(ControlRecordType.COMMIT);
    }

    @Test
    void readCommittedAnswersCarryTheAbortedTransactionsTheyMeet() {
        append(2, true);
        append(2, false);
        fetch.onMarkers(List.of(store.end(topic, TP, PRODUCER, false)));
        append(1, false);

        PartitionResult.Data committed = fetchNow(FetchIsolation.READ_COMMITTED, 0);
        assertThat(baseOffsets(committed)).containsExactly(0L, 2L, 4L, 5L);
        assertThat(committed.offsets()).isEqualTo(new LogOffsets(0, 6, 6));
        assertThat(committed.abortedTransactions()).containsExactly(new AbortedTransaction(PRODUCER, 0, 4));
        assertThat(fetchNow(FetchIsolation.READ_UNCOMMITTED, 0).abortedTransactions())
                .isEmpty();

        int abortedReads = store.abortedReads.get();
        assertThat(fetchNow(FetchIsolation.READ_COMMITTED, 5).abortedTransactions())
                .isEmpty();
        assertThat(store.abortedReads.get())
                .as("the view saw everything from 5 on: no abort")
                .isEqualTo(abortedReads);
    }

    @Test
    void readCommittedOnAPartitionNoTransactionTouchedAsksTheStoreOnceAViewKnowsIt() {
        append(3, false);
        fetchNow(FetchIsolation.READ_COMMITTED, 0);
        append(3, false);
        int offsetReads = store.offsetReads.get();
        int abortedReads = store.abortedReads.get();

        PartitionResult.Data committed = fetchNow(FetchIsolation.READ_COMMITTED, 3);

        assertThat(baseOffsets(committed)).containsExactly(3L);
        assertThat(committed.offsets()).isEqualTo(new LogOffsets(0, 6, 6));
        assertThat(store.offsetReads.get()).isEqualTo(offsetReads);
        assertThat(store.abortedReads.get()).isEqualTo(abortedReads);
    }

    /** Commits a batch of {@code records} records (of {@link #PRODUCER}'s transaction if asked) and tells the fetch service. */
    private void append(int records, boolean transactional) {
        SimpleRecord[] values = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            values[i] = new SimpleRecord(1_000L + i, null, ("v" + i).getBytes());
        }
        ByteBuffer bytes = transactional
                ? MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER, (short) 0, sequence, values)
                        .buffer()
                : MemoryRecords.withRecords(Compression.NONE, values).buffer();
        ProducerState producer = transactional
                ? new ProducerState(PRODUCER, (short) 0, sequence, sequence + records - 1)
                : ProducerState.NONE;
        if (transactional) {
            sequence += records;
        }
        ObjectKey key = produce.registerUpload();
        objects.put(key, bytes.duplicate());
        ByteRange range = new ByteRange(0, bytes.remaining());
        CommitOutcome outcome = sqlite.commit(new ObjectCommit(
                key, bytes.remaining(), List.of(new BatchAppend(TP, topic.id(), range, records, 1_000L, producer))));
        long base = ((AppendResult.Appended)
                        ((CommitOutcome.Committed) outcome).results().get(0))
                .baseOffset();
        if (transactional) {
            store.begin(TP, PRODUCER, base);
        }
        BatchCoordinate batch = sqlite.batches(TP, base, 1).get(0);
        fetch.onCommitted(new CommittedObject(List.of(
                new CommittedObject.Appended(batch, 0, transactional ? PRODUCER : ProducerState.NO_PRODUCER_ID))));
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
