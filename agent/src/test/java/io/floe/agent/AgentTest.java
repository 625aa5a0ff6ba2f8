package io.floe.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.agent.fetch.FetchError;
import io.floe.agent.fetch.FetchQuery;
import io.floe.agent.fetch.FetchResult;
import io.floe.agent.fetch.PartitionQuery;
import io.floe.agent.fetch.PartitionResult;
import io.floe.agent.fetch.TimestampedOffset;
import io.floe.agent.group.GroupCoordinatorConfig;
import io.floe.core.concurrency.Concurrency;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.RecordChunk;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.ForwardingMetadataStore;
import io.floe.core.metadata.MetadataOperation;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.metadata.MetadataStoreException;
import io.floe.core.metadata.ObjectRewrite;
import io.floe.core.metadata.RewriteOutcome;
import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalFiles;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectFileRange;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.metadata.sql.SqlMetadataStore;
import io.floe.testkit.fault.MetadataFaults;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's data path on real stores (SQLite, local directory), without the Kafka protocol. */
class AgentTest {

    @TempDir
    Path dataDir;

    private MetadataStore metadata;
    private ObjectStore objects;
    private Agent agent;
    private SimpleMeterRegistry meters;

    @BeforeEach
    void start() {
        metadata = SqlMetadataStore.openSqlite(dataDir.resolve("metadata.db"));
        objects = new LocalObjectStore(dataDir.resolve("objects"));
        agent = startAgent();
    }

    @AfterEach
    void stop() {
        agent.close();
        metadata.close();
        objects.close();
    }

    private Agent startAgent() {
        return startAgent(objects);
    }

    private Agent startAgent(ObjectStore store) {
        return startAgent(metadata, store);
    }

    private Agent startAgent(MetadataStore metadataStore, ObjectStore store) {
        AgentConfig config = AgentConfig.defaults().withFlush(Duration.ofMillis(5), 1024 * 1024);
        meters = new SimpleMeterRegistry();
        return Agent.start(config, AgentMetadata.of(metadataStore), store, meters, Clock.systemUTC());
    }

    @Test
    void anAgentWhoseStartFailsLeavesNothingRunning() {
        OwnedExecutors recording = new OwnedExecutors(Concurrency.threads());
        MetadataStore failingFirstHeartbeat = new ForwardingMetadataStore(metadata) {
            @Override
            protected <T> T call(MetadataOperation operation, Supplier<T> call) {
                if (operation == MetadataOperation.HEARTBEAT_AGENT_RENEWING) {
                    throw new MetadataStoreException("injected: heartbeat failed", true, null);
                }
                return call.get();
            }
        };

        assertThatThrownBy(() -> Agent.start(
                        AgentConfig.defaults(),
                        AgentMetadata.of(failingFirstHeartbeat),
                        objects,
                        new SimpleMeterRegistry(),
                        Clock.systemUTC(),
                        GroupCoordinatorConfig.defaults(),
                        recording))
                .hasMessageContaining("injected: heartbeat failed");

        assertThat(recording.executors())
                .as("the schedulers and pools the half-started agent made (timeout loop, leases, fetch)")
                .hasSizeGreaterThan(5)
                .allSatisfy(executor -> assertThat(executor.isShutdown()).isTrue());
    }

    @Test
    void assignsDenseOffsetsAndServesTheBatchesBackWithOffsetsPatchedIn() {
        Topic topic = agent.topics().create(new NewTopic("orders", 2, Map.of()), false);

        List<AppendResult> results = List.of(
                append(topic, 0, batch(0, 5)).join(),
                append(topic, 0, batch(5, 5)).join(),
                append(topic, 1, batch(100, 2)).join(),
                append(topic, 0, batch(10, 5)).join());

        assertThat(results)
                .extracting(r -> ((AppendResult.Appended) r).baseOffset())
                .containsExactly(0L, 5L, 0L, 10L);
        List<Record> records = records(fetchNow(new TopicPartition("orders", 0), 0));
        assertThat(records).extracting(Record::offset).containsExactlyElementsOf(range(0, 15));
        assertThat(records).extracting(r -> utf8(r.value())).containsExactlyElementsOf(values(0, 15));
        assertThat(agent.offsets().offsets(new TopicPartition("orders", 1)).highWatermark())
                .isEqualTo(2);
    }

    @Test
    void fetchFromTheMiddleOfABatchReturnsTheWholeBatch() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        append(topic, 0, batch(0, 10)).join();

        List<Record> records = records(fetchNow(new TopicPartition("t", 0), 7));

        assertThat(records).extracting(Record::offset).startsWith(0L).endsWith(9L);
    }

    @Test
    void longPollWakesUpWhenACommitArrives() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        TopicPartition tp = new TopicPartition("t", 0);
        CompletableFuture<FetchResult> waiting = agent.fetch()
                .fetch(new FetchQuery(List.of(new PartitionQuery(tp, 0, 1 << 20)), Duration.ofMinutes(5), 1, 1 << 20));
        assertThat(waiting).isNotDone();

        append(topic, 0, batch(0, 3)).join();

        assertThat(records(waiting.join().partitions().get(0))).hasSize(3);
    }

    @Test
    void longPollAnswersEmptyWhenMaxWaitPasses() {
        agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        TopicPartition tp = new TopicPartition("t", 0);

        FetchResult result = agent.fetch()
                .fetch(new FetchQuery(List.of(new PartitionQuery(tp, 0, 1 << 20)), Duration.ofMillis(20), 1, 1 << 20))
                .join();

        assertThat(records(result.partitions().get(0))).isEmpty();
    }

    @Test
    void fetchOutsideTheLogIsOutOfRange() {
        agent.topics().create(new NewTopic("t", 1, Map.of()), false);

        PartitionResult result = fetchNow(new TopicPartition("t", 0), 1);

        assertThat(result)
                .isInstanceOfSatisfying(
                        PartitionResult.Error.class,
                        e -> assertThat(e.error()).isEqualTo(FetchError.OFFSET_OUT_OF_RANGE));
        assertThat(fetchNow(new TopicPartition("nope", 0), 0))
                .isInstanceOfSatisfying(
                        PartitionResult.Error.class,
                        e -> assertThat(e.error()).isEqualTo(FetchError.UNKNOWN_TOPIC_OR_PARTITION));
    }

    @Test
    void anIdempotentRetryIsStoredOnceAndAnsweredWithItsOriginalOffset() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        ByteBuffer first = idempotentBatch(4000L, 0, 3);

        AppendResult original = append(topic, 0, first).join();
        AppendResult retry = append(topic, 0, first).join();
        AppendResult next = append(topic, 0, idempotentBatch(4000L, 3, 2)).join();

        assertThat(original).isEqualTo(new AppendResult.Appended(0, 0));
        assertThat(retry).isEqualTo(new AppendResult.Duplicate(0, 0));
        assertThat(next).isEqualTo(new AppendResult.Appended(3, 0));
        assertThat(records(fetchNow(new TopicPartition("t", 0), 0))).hasSize(5);
    }

    /** Issue 16: an Error while finishing one flush left every later flush unanswered (a broken commit chain). */
    @Test
    void anErrorWhileFinishingOneFlushLeavesLaterFlushesAnswered() throws Exception {
        agent.close();
        agent = startAgent(MetadataFaults.commitsThrowingErrors(metadata, commit -> commit == 1), objects);
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);

        AppendResult failed = append(topic, 0, batch(0, 3)).get(30, TimeUnit.SECONDS);
        AppendResult next = append(topic, 0, batch(3, 2)).get(30, TimeUnit.SECONDS);

        assertThat(failed)
                .isInstanceOfSatisfying(
                        AppendResult.Failed.class,
                        f -> assertThat(f.message()).contains("injected: an Error while committing"));
        assertThat(next).isEqualTo(new AppendResult.Appended(0, 0));
    }

    @Test
    void aRetryAnsweredAsADuplicateMakesTheStoredRecordsFetchableOnTheAgentThatAnsweredIt() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        TopicPartition tp = new TopicPartition("t", 0);
        try (Agent other = startAgent()) {
            assertThat(records(fetchNow(other, tp, 0))).isEmpty(); // its view of the partition: empty
            ByteBuffer batch = idempotentBatch(4100L, 0, 3);
            // Stored through the first agent, whose answer the producer never got (the agent died, say).
            assertThat(append(topic, 0, batch.duplicate()).join()).isInstanceOf(AppendResult.Appended.class);

            AppendResult retry =
                    other.produce().append(topic, 0, batch.duplicate()).join();

            assertThat(retry).isInstanceOf(AppendResult.Duplicate.class);
            // The other agent commits nothing to the partition, yet must show what the retry was answered with.
            assertThat(records(fetchNow(other, tp, 0)))
                    .extracting(Record::offset)
                    .containsExactly(0L, 1L, 2L);
        }
    }

    @Test
    void aFetchWhoseRecordsExpiredBehindTheAgentsBackIsOutOfRangeNotEmptyForever() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        TopicPartition tp = new TopicPartition("t", 0);
        append(topic, 0, batch(0, 5)).join();
        assertThat(records(fetchNow(tp, 0))).hasSize(5); // the agent's view: log start 0, end 5
        // Retention on another agent removes everything; this agent's view still says [0, 5].
        metadata.truncateLog(tp, 5, Instant.now());

        PartitionResult result = fetchNow(tp, 0);

        assertThat(result).isInstanceOfSatisfying(PartitionResult.Error.class, e -> {
            assertThat(e.error()).isEqualTo(FetchError.OFFSET_OUT_OF_RANGE);
            assertThat(e.offsets().logStartOffset()).isEqualTo(5);
        });
    }

    @Test
    void aFetchPlannedOnAnIndexedBatchWhoseObjectIsGoneIsPlannedAgainFromTheStore() {
        AtomicBoolean counterUnreadable = new AtomicBoolean();
        agent.close();
        agent = startAgent(MetadataFaults.logRewritesUnreadable(metadata, counterUnreadable::get), objects);
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        TopicPartition tp = new TopicPartition("t", 0);
        append(topic, 0, batch(0, 5)).join(); // the agent indexes it as it commits
        // Compaction elsewhere moves the batch to another object and deletes the first; this agent cannot
        // read the store's log rewrites counter, so its index still points at the deleted object.
        BatchCoordinate stored = metadata.batches(tp, 0, 1).get(0);
        ObjectKey moved = new ObjectKey("segments/ff/moved.seg");
        objects.put(moved, objects.get(stored.object(), stored.range()));
        metadata.registerUpload(moved, "compaction", Instant.now());
        ByteRange to = new ByteRange(0, stored.range().length());
        assertThat(metadata.rewrite(
                        new ObjectRewrite(moved, to.length(), List.of(new ObjectRewrite.Move(stored, to))),
                        Instant.now()))
                .isInstanceOf(RewriteOutcome.Rewritten.class);
        objects.delete(stored.object());
        counterUnreadable.set(true);

        List<Record> records = records(fetchNow(tp, 0));

        assertThat(records).extracting(r -> utf8(r.value())).containsExactlyElementsOf(values(0, 5));
        assertThat(records).extracting(Record::offset).containsExactlyElementsOf(range(0, 5));
        assertThat(meters.counter("floe.fetch.replans").count()).isEqualTo(1);
    }

    @Test
    void aHeartbeatWaitingOnTheStoreDoesNotHoldFlushesBackFromTheirInterval() throws Exception {
        AtomicBoolean hold = new AtomicBoolean();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        agent.close();
        agent = startAgent(MetadataFaults.heartbeatsHeld(metadata, hold::get, held, release), objects);
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        try {
            hold.set(true);
            assertThat(held.await(30, TimeUnit.SECONDS))
                    .as("a heartbeat waits on the store")
                    .isTrue();

            // No connection waits on this append, so only the flush interval's timer seals its flush.
            AppendResult result = append(topic, 0, batch(0, 5)).get(30, TimeUnit.SECONDS);

            assertThat(result).isInstanceOf(AppendResult.Appended.class);
            assertThat(release.getCount())
                    .as("answered while the heartbeat still waited")
                    .isOne();
        } finally {
            release.countDown();
        }
    }

    @Test
    void aFetchOfIndexedBatchesFromLocalFilesIsAnsweredOnTheCallersThreadAndOthersOnTheFetchExecutor() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        TopicPartition tp = new TopicPartition("t", 0);
        append(topic, 0, batch(0, 5)).join();
        FetchQuery query =
                new FetchQuery(List.of(new PartitionQuery(tp, 0, 1 << 20)), Duration.ofMinutes(5), 1, 1 << 20);

        CompletableFuture<FetchResult> indexed = agent.fetch().fetch(query);

        assertThat(indexed).as("answered before fetch() returned").isDone();
        assertThat(records(indexed.join().partitions().get(0))).hasSize(5);
        assertThat(meters.counter("floe.fetch.inline").count()).isEqualTo(1);

        agent.close();
        agent = startAgent(); // its view starts at the end: offset 0 lies below its index, in the store
        assertThat(records(agent.fetch().fetch(query).join().partitions().get(0)))
                .hasSize(5);
        assertThat(meters.counter("floe.fetch.inline").count()).isZero();
    }

    @Test
    void aRestartedAgentServesEverythingAcknowledgedFromTheStores() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        for (int i = 0; i < 20; i++) {
            append(topic, 0, batch(i * 3, 3)).join();
        }
        agent.close();

        agent = startAgent();

        List<Record> records = new ArrayList<>();
        long next = 0;
        while (next < 60) {
            List<Record> page = records(fetchNow(new TopicPartition("t", 0), next));
            records.addAll(page);
            next = page.get(page.size() - 1).offset() + 1;
        }
        assertThat(records).extracting(r -> utf8(r.value())).containsExactlyElementsOf(values(0, 60));
    }

    @Test
    void fetchReadsAreCountedAsServedFromTheCacheOrFromTheObjectStore() {
        agent.close();
        agent = startAgent(remote(objects)); // fresh objects go into the cache as they are uploaded
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        append(topic, 0, batch(0, 3)).join();
        append(topic, 0, batch(3, 3)).join();
        TopicPartition tp = new TopicPartition("t", 0);

        assertThat(records(fetchNow(tp, 0))).hasSize(6);
        // Two flushes, two objects: two runs, both in the cache since their upload.
        assertThat(fetchReads("cache")).isEqualTo(2);
        assertThat(fetchReads("object-store")).isZero();

        agent.close();
        agent = startAgent(remote(objects)); // an empty cache
        // A fetch for the network may send from files, but this store has none: it reads, and no file request is
        // counted.
        FetchQuery network =
                new FetchQuery(List.of(new PartitionQuery(tp, 0, 1 << 20)), Duration.ZERO, 0, 1 << 20, true);
        assertThat(records(agent.fetch().fetch(network).join().partitions().get(0)))
                .hasSize(6);
        assertThat(records(fetchNow(tp, 0))).hasSize(6);

        assertThat(fetchReads("object-store")).isEqualTo(2);
        assertThat(fetchReads("cache")).isEqualTo(2);
        assertThat(meters.get("floe.objectstore.requests")
                        .tag("kind", "GET")
                        .timer()
                        .count())
                .isEqualTo(2);
    }

    @Test
    void aStoreOfLocalFilesLeavesFreshObjectsToThePageCache() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        append(topic, 0, batch(0, 3)).join();
        append(topic, 0, batch(3, 3)).join();
        TopicPartition tp = new TopicPartition("t", 0);

        assertThat(records(fetchNow(tp, 0))).hasSize(6);
        assertThat(records(fetchNow(tp, 0))).hasSize(6);

        // No copy in the agent's cache from the upload: the first fetch reads the files, the second the ranges it
        // cached.
        assertThat(fetchReads("object-store")).isEqualTo(2);
        assertThat(fetchReads("cache")).isEqualTo(2);
    }

    @Test
    void aFetchForTheNetworkSendsRunsAsTheyLieInFilesThatHoldTheirAssignedOffsets() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        append(topic, 0, batch(0, 3)).join();
        append(topic, 0, bigBatch()).join();
        TopicPartition tp = new TopicPartition("t", 0);

        PartitionResult.Data data = networkFetch(tp);

        // Each commit wrote its batches' offsets into its object's file: one piece per run (one per object here).
        assertThat(data.chunks())
                .hasSize(2)
                .allSatisfy(chunk -> assertThat(chunk).isInstanceOf(RecordChunk.InFile.class));
        assertThat(records(data)).extracting(Record::offset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
        RecordChunk.InFile second = (RecordChunk.InFile) data.chunks().get(1);
        assertThat(objects.get(second.file().key(), new ByteRange(second.position(), Long.BYTES))
                        .getLong(0))
                .as("the big batch's base offset in its file")
                .isEqualTo(3);
        data.release();
    }

    @Test
    void withoutOffsetsInTheFileABigBatchGoesOutAsItsOffsetFromMemoryAndTheRestFromTheFile() {
        agent.close();
        agent = startAgent(withoutOffsetWrites(objects));
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        append(topic, 0, batch(0, 3)).join(); // small: read, as sending it in two pieces costs more
        append(topic, 0, bigBatch()).join();
        TopicPartition tp = new TopicPartition("t", 0);

        PartitionResult.Data data = networkFetch(tp);

        assertThat(data.chunks()).hasSize(3);
        assertThat(data.chunks().get(0)).isInstanceOf(RecordChunk.InMemory.class);
        assertThat(data.chunks().get(1))
                .isInstanceOfSatisfying(
                        RecordChunk.InMemory.class,
                        offset -> assertThat(offset.bytes().getLong(0)).isEqualTo(3));
        assertThat(data.chunks().get(2)).isInstanceOf(RecordChunk.InFile.class);
        assertThat(records(data)).extracting(Record::offset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
        data.release();
        assertThat(fetchReads("object-store")).isEqualTo(2);
        assertThat(meters.get("floe.fetch.read.bytes")
                        .tag("source", "object-file")
                        .counter()
                        .count())
                .isEqualTo(((RecordChunk.InFile) data.chunks().get(2)).length() + Long.BYTES);
    }

    private PartitionResult.Data networkFetch(TopicPartition tp) {
        return (PartitionResult.Data) agent.fetch()
                .fetch(new FetchQuery(List.of(new PartitionQuery(tp, 0, 1 << 20)), Duration.ZERO, 0, 1 << 20, true))
                .join()
                .partitions()
                .get(0);
    }

    /** A batch of four 10 kB records, big enough to be sent from the file even in two pieces. */
    private static ByteBuffer bigBatch() {
        SimpleRecord[] big = new SimpleRecord[4];
        for (int i = 0; i < big.length; i++) {
            big[i] = new SimpleRecord(1_000L + i, null, new byte[10_000]);
        }
        return MemoryRecords.withRecords(Compression.NONE, big).buffer();
    }

    /** {@code local} as a store of local files that cannot take assigned offsets would look. */
    private static ObjectStore withoutOffsetWrites(ObjectStore local) {
        return new Disguised(local, true);
    }

    /** {@code local} as a store of remote objects would look: no local files to send or leave to the page cache. */
    private static ObjectStore remote(ObjectStore local) {
        return new Disguised(local, false);
    }

    /** A local store passed through, with or without its files, never taking assigned offsets. */
    private record Disguised(ObjectStore local, boolean files) implements ObjectStore {
        @Override
        public void put(ObjectKey key, ByteBuffer content) {
            local.put(key, content);
        }

        @Override
        public ByteBuffer get(ObjectKey key, ByteRange range) {
            return local.get(key, range);
        }

        @Override
        public ByteBuffer get(ObjectKey key) {
            return local.get(key);
        }

        @Override
        public Optional<LocalFiles> localFiles() {
            if (!files) {
                return Optional.empty();
            }
            LocalFiles localFiles = local.localFiles().orElseThrow();
            return Optional.of(new LocalFiles() {
                @Override
                public ObjectFileRange getFileRange(ObjectKey key, ByteRange range) {
                    return localFiles.getFileRange(key, range);
                }

                @Override
                public void writeBaseOffsets(ObjectKey key, long[] positions, long[] offsets) {
                    throw new UnsupportedOperationException("no assigned offsets in " + describe());
                }
            });
        }

        @Override
        public List<ObjectInfo> list(String prefix) {
            return local.list(prefix);
        }

        @Override
        public void delete(ObjectKey key) {
            local.delete(key);
        }

        @Override
        public String describe() {
            return (files ? "offset-less " : "remote-like ") + local.describe();
        }

        @Override
        public void close() {}
    }

    private double fetchReads(String source) {
        return meters.get("floe.fetch.reads").tag("source", source).counter().count();
    }

    @Test
    void findsOffsetsByTimestamp() {
        Topic topic = agent.topics().create(new NewTopic("t", 1, Map.of()), false);
        append(topic, 0, batch(0, 5)).join();
        append(topic, 0, batch(5, 5)).join();
        TopicPartition tp = new TopicPartition("t", 0);

        assertThat(agent.offsets().firstOffsetAtOrAfter(tp, 1_007)).contains(new TimestampedOffset(7, 1_007));
        assertThat(agent.offsets().firstOffsetAtOrAfter(tp, 5_000)).isEmpty();
        assertThat(agent.offsets().maxTimestamp(tp)).contains(new TimestampedOffset(9, 1_009));
    }

    private CompletableFuture<AppendResult> append(Topic topic, int partition, ByteBuffer records) {
        return agent.produce().append(topic, partition, records);
    }

    private PartitionResult fetchNow(TopicPartition tp, long offset) {
        return fetchNow(agent, tp, offset);
    }

    private static PartitionResult fetchNow(Agent agent, TopicPartition tp, long offset) {
        return agent.fetch()
                .fetch(new FetchQuery(List.of(new PartitionQuery(tp, offset, 1 << 20)), Duration.ZERO, 0, 1 << 20))
                .join()
                .partitions()
                .get(0);
    }

    private static List<Record> records(PartitionResult result) {
        assertThat(result).isInstanceOf(PartitionResult.Data.class);
        List<Record> records = new ArrayList<>();
        for (RecordBatch batch : MemoryRecords.readableRecords(((PartitionResult.Data) result).contiguous())
                .batches()) {
            assertThat(batch.isValid()).isTrue();
            batch.forEach(records::add);
        }
        return records;
    }

    private static ByteBuffer batch(int first, int count) {
        return MemoryRecords.withRecords(Compression.NONE, simpleRecords(first, count))
                .buffer();
    }

    private static ByteBuffer idempotentBatch(long producerId, int sequence, int count) {
        return MemoryRecords.withIdempotentRecords(
                        Compression.NONE, producerId, (short) 0, sequence, simpleRecords(sequence, count))
                .buffer();
    }

    private static SimpleRecord[] simpleRecords(int first, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(
                    1_000L + first + i,
                    ("k" + (first + i)).getBytes(StandardCharsets.UTF_8),
                    ("v" + (first + i)).getBytes(StandardCharsets.UTF_8));
        }
        return records;
    }

    private static List<Long> range(long from, long to) {
        List<Long> offsets = new ArrayList<>();
        for (long i = from; i < to; i++) {
            offsets.add(i);
        }
        return offsets;
    }

    private static List<String> values(int from, int to) {
        List<String> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            values.add("v" + i);
        }
        return values;
    }

    private static String utf8(ByteBuffer buffer) {
        return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
    }
}
