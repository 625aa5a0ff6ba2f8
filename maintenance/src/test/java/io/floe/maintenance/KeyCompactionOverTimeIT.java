package io.floe.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.agent.fetch.FetchIsolation;
import io.floe.agent.fetch.FetchQuery;
import io.floe.agent.fetch.PartitionQuery;
import io.floe.agent.fetch.PartitionResult;
import io.floe.core.log.AbortedTransaction;
import io.floe.core.log.LogEntry;
import io.floe.core.log.TopicPartition;
import io.floe.core.log.TransactionMarker;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.BatchesQuery;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.TransactionalAppend;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.core.transaction.ProducerEpoch;
import io.floe.core.transaction.TransactionOutcome;
import io.floe.maintenance.keys.KeyCompaction;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key compaction over days of virtual time on a real agent, SQLite and a local object store: what a
 * compacted topic keeps while Kafka would still hold it in its active segment, and what it must not
 * keep forever (transaction markers of a transactional changelog, the batches of superseded records).
 * Every read is a read_committed consumer's from offset 0, filtering as kafka-clients does.
 */
@Timeout(120)
class KeyCompactionOverTimeIT {

    private static final String TRANSACTIONAL_ID = "changelog-writer";
    private static final Duration DELETE_RETENTION = Duration.ofHours(1);

    @TempDir
    Path dataDir;

    private final ManualClock clock = new ManualClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private MetadataStore metadata;
    private ObjectStore objects;
    private Agent agent;
    private MaintenanceConfig config;
    private ProducerEpoch producer;
    private int sequence;

    /** A record as a read_committed consumer returns it. */
    private record Seen(long offset, String key, String value) {}

    @BeforeEach
    void start() {
        metadata = SqlMetadataStore.openSqlite(dataDir.resolve("metadata.db"));
        objects = new LocalObjectStore(dataDir.resolve("objects"));
        agent = Agent.start(
                AgentConfig.defaults().withFlush(Duration.ofMillis(2), 64 * 1024),
                AgentMetadata.of(metadata),
                objects,
                meters,
                clock);
        config = MaintenanceConfig.DEFAULTS.withCleanup(Duration.ofHours(1), Duration.ofMinutes(1), Duration.ZERO);
    }

    @AfterEach
    void stop() {
        agent.close();
        metadata.close();
        objects.close();
    }

    /**
     * Kafka never cleans the active segment (7 days or 1 GiB by default): a change-topic reader that
     * starts from the beginning a minute after publication must find every event. Floe used to clean
     * every batch but the last once its object was 30 s old.
     */
    @Test
    void aYoungCompactedTopicKeepsEveryRecordUntilKafkaWouldHaveRolledItsSegment() {
        Topic topic = compactedTopic("young", Map.of());
        TopicPartition tp = new TopicPartition("young", 0);
        for (int i = 0; i < 40; i++) {
            append(topic, List.of(record("key-" + (i % 4), "v" + i)), TransactionalAppend.NONE);
            clock.step(Duration.ofSeconds(1));
        }
        List<Seen> published = readCommitted(tp);
        KeyCompaction keys = keyCompaction();

        clock.step(Duration.ofMinutes(1));
        keys.run(clock.instant());
        clock.step(Duration.ofDays(6));
        keys.run(clock.instant());

        assertThat(readCommitted(tp)).as("a week's segment is still active").isEqualTo(published);

        // The first append after segment.ms rolls the segment: what came before may now be cleaned.
        clock.step(Duration.ofDays(1));
        append(topic, List.of(record("key-0", "after a week")), TransactionalAppend.NONE);
        keys.run(clock.instant());

        List<Seen> compacted = readCommitted(tp);
        assertThat(compacted).extracting(Seen::value).containsExactly("v36", "v37", "v38", "v39", "after a week");
    }

    /**
     * A transactional changelog on a compact-only topic (Kafka Streams exactly_once_v2): every
     * transaction leaves a marker, and retention never moves the log start of such a topic. Once the
     * markers' transactions have no record left and delete.retention.ms has passed, they go, so the
     * rows a partition keeps stay proportional to its live keys, not to the transactions ever run.
     */
    @Test
    void transactionMarkersAndBatchesStayBoundedByTheLiveKeys() {
        Topic topic = compactedTopic(
                "changelog",
                Map.of("segment.ms", Long.toString(Duration.ofHours(1).toMillis())));
        TopicPartition tp = new TopicPartition("changelog", 0);
        producer = init();
        int keys = 10;
        int transactions = 120;
        Map<String, String> newest = new LinkedHashMap<>();
        for (int i = 0; i < transactions; i++) {
            boolean commit = i % 5 != 4;
            String value = (commit ? "committed-" : "aborted-") + i;
            List<SimpleRecord> records =
                    List.of(record("key-" + (i % keys), value), record("key-" + ((i + 3) % keys), value));
            transaction(topic, tp, records, commit);
            if (commit) {
                records.forEach(r -> newest.put(text(r.key()), value));
            }
            clock.step(Duration.ofMinutes(1));
        }
        // Two hours of transactions; an append two hours later rolls the last segment.
        clock.step(Duration.ofHours(2));
        transaction(topic, tp, List.of(record("key-0", "last")), true);
        newest.put("key-0", "last");
        assertThat(markers(tp)).hasSize(transactions + 1);

        KeyCompaction compaction = keyCompaction();
        compaction.run(clock.instant());
        clock.step(DELETE_RETENTION.plus(config.objectDeleteDelay()));
        compaction.run(clock.instant());

        Map<String, String> read = new HashMap<>();
        List<Seen> seen = readCommitted(tp);
        seen.forEach(record -> read.put(record.key(), record.value()));
        assertThat(seen).extracting(Seen::value).noneMatch(value -> value.startsWith("aborted-"));
        assertThat(read).isEqualTo(newest);
        assertThat(markers(tp))
                .as("markers: one per transaction whose records are the newest of their key, and the active"
                        + " segment's")
                .hasSizeLessThanOrEqualTo(keys + 1);
        assertThat(metadata.batches(tp, 0, 10_000))
                .as("batches: one per transaction whose records are the newest of their key, and the active"
                        + " segment's")
                .hasSizeLessThanOrEqualTo(keys + 1);
        assertThat(metadata.producers(tp))
                .as("producer state: the one producer")
                .hasSize(1);
        assertThat(meters.counter("floe.key.compaction.markers.removed").count())
                .isGreaterThanOrEqualTo(transactions - keys);
    }

    /**
     * Abort markers are the index of aborted transactions: one removed while a record it aborts is
     * still in the log would hand that record to read_committed readers. Whoever asks to clean
     * markers, the store removes one only once no batch of its producer is left in its transaction.
     */
    @Test
    void aReadCommittedReaderNeverSeesAnAbortedRecordWhenMarkersAreCleanedFirst() {
        Topic topic = compactedTopic("guarded", Map.of());
        TopicPartition tp = new TopicPartition("guarded", 0);
        producer = init();
        for (int i = 0; i < 6; i++) {
            boolean commit = i % 2 == 0;
            transaction(topic, tp, List.of(record("key-" + i, (commit ? "committed-" : "aborted-") + i)), commit);
            clock.step(Duration.ofMinutes(1));
        }
        long end = metadata.offsets(tp).highWatermark();
        append(topic, List.of(record("key-tail", "tail")), TransactionalAppend.NONE);

        metadata.cleanMarkers(tp, 0, end, clock.instant(), clock.instant(), 100);
        clock.step(Duration.ofDays(1));
        metadata.cleanMarkers(tp, 0, end, clock.instant(), clock.instant(), 100);

        assertThat(readCommitted(tp))
                .extracting(Seen::value)
                .containsExactly("committed-0", "committed-2", "committed-4", "tail");
        assertThat(markers(tp))
                .as("every marker still has its transaction's records")
                .hasSize(6);
    }

    private KeyCompaction keyCompaction() {
        return new KeyCompaction(
                config,
                MaintenanceMetadata.of(metadata),
                objects,
                agent.topics().configs(),
                "test-agent",
                clock,
                meters);
    }

    private Topic compactedTopic(String name, Map<String, String> configs) {
        Map<String, String> all = new HashMap<>(configs);
        all.put("cleanup.policy", "compact");
        all.put("delete.retention.ms", Long.toString(DELETE_RETENTION.toMillis()));
        return agent.topics().create(new NewTopic(name, 1, all), false);
    }

    private ProducerEpoch init() {
        TransactionOutcome outcome = metadata.initProducer(TRANSACTIONAL_ID, 60_000, null, clock.instant());
        assertThat(outcome).isInstanceOf(TransactionOutcome.Done.class);
        return ((TransactionOutcome.Done) outcome).producer();
    }

    /** One transaction of one batch on partition 0, committed or aborted (transaction version 1). */
    private void transaction(Topic topic, TopicPartition tp, List<SimpleRecord> records, boolean commit) {
        assertThat(metadata.addPartitions(TRANSACTIONAL_ID, producer, List.of(tp), clock.instant()))
                .isInstanceOf(TransactionOutcome.Done.class);
        append(topic, records, TransactionalAppend.IN_TRANSACTION);
        assertThat(metadata.endTransaction(TRANSACTIONAL_ID, producer, commit, false, clock.instant()))
                .isInstanceOf(TransactionOutcome.Done.class);
    }

    private void append(Topic topic, List<SimpleRecord> records, TransactionalAppend mode) {
        SimpleRecord[] array = records.toArray(SimpleRecord[]::new);
        ByteBuffer bytes = mode == TransactionalAppend.NONE
                ? MemoryRecords.withRecords(Compression.NONE, array).buffer()
                : MemoryRecords.withTransactionalRecords(
                                Compression.NONE, producer.producerId(), producer.epoch(), sequence, array)
                        .buffer();
        if (mode != TransactionalAppend.NONE) {
            sequence += records.size();
        }
        assertThat(agent.produce().append(topic, 0, bytes, mode).join()).isInstanceOf(AppendResult.Appended.class);
    }

    private SimpleRecord record(String key, String value) {
        return new SimpleRecord(clock.millis(), bytes(key), bytes(value));
    }

    private List<TransactionMarker> markers(TopicPartition tp) {
        List<TransactionMarker> markers = new ArrayList<>();
        for (LogEntry entry :
                metadata.entries(List.of(new BatchesQuery(tp, 0, 100_000))).get(0)) {
            if (entry instanceof TransactionMarker marker) {
                markers.add(marker);
            }
        }
        return markers;
    }

    /**
     * Every record from offset 0 to the last stable offset as a read_committed kafka-clients consumer
     * returns it: fetch by fetch, dropping the batches of the aborted transactions each answer lists
     * until the abort marker of their producer.
     */
    private List<Seen> readCommitted(TopicPartition tp) {
        List<Seen> records = new ArrayList<>();
        long next = 0;
        long end = metadata.offsets(tp).lastStableOffset();
        while (next < end) {
            FetchQuery query = new FetchQuery(
                    List.of(new PartitionQuery(tp, next, 1 << 20)),
                    Duration.ZERO,
                    0,
                    1 << 20,
                    false,
                    FetchIsolation.READ_COMMITTED);
            PartitionResult result =
                    agent.fetch().fetch(query).join().partitions().get(0);
            assertThat(result).as("fetch of %s at %d", tp, next).isInstanceOf(PartitionResult.Data.class);
            PartitionResult.Data data = (PartitionResult.Data) result;
            PriorityQueue<AbortedTransaction> aborted =
                    new PriorityQueue<>((a, b) -> Long.compare(a.firstOffset(), b.firstOffset()));
            aborted.addAll(data.abortedTransactions());
            Set<Long> abortedProducers = new HashSet<>();
            long before = next;
            for (RecordBatch batch :
                    MemoryRecords.readableRecords(data.contiguous()).batches()) {
                while (!aborted.isEmpty() && aborted.peek().firstOffset() <= batch.lastOffset()) {
                    abortedProducers.add(aborted.poll().producerId());
                }
                if (batch.isControlBatch()) {
                    Record control = batch.iterator().next();
                    if (EndTransactionMarker.deserialize(control).controlType() == ControlRecordType.ABORT) {
                        abortedProducers.remove(batch.producerId());
                    }
                } else if (!(batch.isTransactional() && abortedProducers.contains(batch.producerId()))) {
                    for (Record record : batch) {
                        if (record.offset() >= next) {
                            records.add(new Seen(record.offset(), text(record.key()), text(record.value())));
                        }
                    }
                }
                next = Math.max(next, batch.nextOffset());
            }
            assertThat(next)
                    .as("a fetch at %d of %s returned no batch", before, tp)
                    .isGreaterThan(before);
        }
        return records;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
