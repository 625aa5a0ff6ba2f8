package io.floe.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.agent.fetch.FetchQuery;
import io.floe.agent.fetch.PartitionQuery;
import io.floe.agent.fetch.PartitionResult;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.object.ObjectStoreException;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.maintenance.cleanup.ObjectCleanup;
import io.floe.maintenance.compaction.SegmentCompaction;
import io.floe.maintenance.retention.Retention;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.compress.Compression;
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
 * The jobs against a real agent on SQLite and a local object store: compaction keeps every record at
 * its offset while readers read, retention by time and size, the orphan sweep; after each test a scan
 * finds no batch row pointing to a missing object, no object the metadata does not know and no
 * reference count that differs from its object's batch rows.
 */
@Timeout(300)
class MaintenanceIT {

    private static final int PARTITIONS = 6;
    private static final long TARGET_BYTES = 2L << 20;

    @TempDir
    Path dataDir;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private MetadataStore metadata;
    private ObjectStore objects;
    private Agent agent;
    private MaintenanceConfig config;

    @BeforeEach
    void start() {
        metadata = SqlMetadataStore.openSqlite(dataDir.resolve("metadata.db"));
        objects = new LocalObjectStore(dataDir.resolve("objects"));
        // No object cache: every read goes to the object store, so reads of compacted and deleted objects
        // really happen (the cache would serve their immutable bytes without asking).
        agent = Agent.start(
                AgentConfig.defaults()
                        .withFlush(Duration.ofMillis(2), 64 * 1024)
                        .withCacheBytesMax(0),
                AgentMetadata.of(metadata),
                objects,
                meters,
                Clock.systemUTC());
        config = MaintenanceConfig.DEFAULTS
                .withCompaction(Duration.ofHours(1), TARGET_BYTES, TARGET_BYTES / 2, Duration.ZERO)
                .withCleanup(Duration.ofHours(1), Duration.ZERO, Duration.ZERO);
    }

    @AfterEach
    void stop() {
        try {
            assertStorageConsistent();
        } finally {
            agent.close();
            metadata.close();
            objects.close();
        }
    }

    @Test
    void compactionKeepsEveryRecordAtItsOffsetWhileConsumersRead() throws Exception {
        Topic topic = agent.topics().create(new NewTopic("clicks", PARTITIONS, Map.of()), false);
        for (int p = 0; p < PARTITIONS; p++) {
            // A consumer waiting at the end (the agent indexes each commit of these partitions in memory anyway).
            assertThat(readAllOf(new TopicPartition("clicks", p))).isEmpty();
            agent.fetch()
                    .fetch(new FetchQuery(
                            List.of(new PartitionQuery(new TopicPartition("clicks", p), 0, 1024)),
                            Duration.ZERO,
                            0,
                            1024))
                    .join();
        }
        produce(topic, 1_000_000, 100, 0);
        List<List<Record>> before = readAll(topic);
        assertThat(before.stream().mapToInt(List::size).sum()).isEqualTo(1_000_000);
        long objectsBefore = metadata.storageStats().committedObjects();
        long bytes = metadata.storageStats().committedBytes();

        AtomicBoolean compacting = new AtomicBoolean(true);
        ExecutorService reader = Executors.newSingleThreadExecutor();
        Future<Integer> reads = reader.submit(() -> {
            int passes = 0;
            while (compacting.get() || passes == 0) {
                assertThat(readAll(topic)).isEqualTo(before);
                passes++;
            }
            return passes;
        });
        // Inputs stay readable for the delete delay, as fetches planned before a swap need; the final
        // cleanup, an hour later, deletes them, and the agent's reads then find the moved batches.
        MaintenanceConfig delayed = config.withCleanup(Duration.ofHours(1), Duration.ofHours(1), Duration.ZERO);
        SegmentCompaction compaction =
                new SegmentCompaction(delayed, metadata, metadata, objects, "test-agent", Clock.systemUTC(), meters);
        ObjectCleanup cleanup = new ObjectCleanup(delayed, metadata, objects, meters);
        int rounds = 0;
        while (!compaction.run(Instant.now()).isEmpty()) {
            cleanup.run(Instant.now());
            assertThat(++rounds).as("compaction rounds").isLessThan(20);
        }
        compacting.set(false);
        assertThat(reads.get()).isPositive();
        reader.shutdown();
        assertThat(readAll(topic)).isEqualTo(before);
        cleanup.run(Instant.now().plus(Duration.ofHours(2)));

        long objectsAfter = metadata.storageStats().committedObjects();
        long bound = PARTITIONS * ((bytes + TARGET_BYTES - 1) / TARGET_BYTES) + PARTITIONS;
        assertThat(objectsBefore).isGreaterThan(bound);
        assertThat(objectsAfter).isLessThanOrEqualTo(bound);
        assertThat(objects.list("segments/")).hasSize((int) objectsAfter);
        assertThat(readAll(topic)).isEqualTo(before);
        assertThat(meters.counter("floe.fetch.replans").count())
                .as(
                        "the agent dropped its index once compaction moved the batches: no read was planned on a deleted input")
                .isZero();
        assertThat(meters.counter("floe.compaction.bytes.read").count()).isPositive();
    }

    @Test
    void retentionByTimeAndBySizeMovesTheLogStart() {
        Topic byTime = agent.topics().create(new NewTopic("by-time", 1, Map.of("retention.ms", "3600000")), false);
        Topic bySize = agent.topics().create(new NewTopic("by-size", 1, Map.of("retention.bytes", "20000")), false);
        long now = System.currentTimeMillis();
        produce(byTime, 500, 100, now - Duration.ofHours(2).toMillis());
        produce(byTime, 300, 100, now);
        produce(bySize, 2000, 100, now);

        new Retention(config, metadata, metadata, metadata, agent.topics().configs(), meters)
                .run(Instant.ofEpochMilli(now));
        new ObjectCleanup(config, metadata, objects, meters).run(Instant.ofEpochMilli(now));

        TopicPartition time = new TopicPartition("by-time", 0);
        assertThat(metadata.offsets(time)).isEqualTo(new LogOffsets(500, 800));
        assertThat(metadata.batches(time, 0, 100).get(0).baseOffset()).isEqualTo(500);
        TopicPartition size = new TopicPartition("by-size", 0);
        LogOffsets sized = metadata.offsets(size);
        assertThat(sized.highWatermark()).isEqualTo(2000);
        assertThat(metadata.partitionSizes("by-size").get(0)).isLessThanOrEqualTo(20000);
        assertThat(sized.logStartOffset()).isPositive();
        assertThat(readAllOf(size)).extracting(Record::offset).first().isEqualTo(sized.logStartOffset());
    }

    @Test
    void theSweepRemovesAnUploadThatWasNeverCommittedAndAnObjectNoRowKnows() {
        ObjectKey registered = new ObjectKey("segments/aa/died-between-upload-and-commit.seg");
        metadata.registerUpload(registered, "dead-agent", Instant.now().minusSeconds(3600));
        objects.put(registered, ByteBuffer.wrap(new byte[] {1, 2, 3}));
        ObjectKey unknown = new ObjectKey("segments/bb/uploaded-after-its-registration-expired.seg");
        objects.put(unknown, ByteBuffer.wrap(new byte[] {4, 5, 6}));
        Topic topic = agent.topics().create(new NewTopic("live", 1, Map.of()), false);
        produce(topic, 100, 10, 0);

        new ObjectCleanup(
                        config.withCleanup(Duration.ofHours(1), Duration.ZERO, Duration.ofSeconds(0)),
                        metadata,
                        objects,
                        meters)
                .run(Instant.now().plusSeconds(1));

        List<ObjectKey> left =
                objects.list("segments/").stream().map(ObjectInfo::key).toList();
        assertThat(left).doesNotContain(registered, unknown).isNotEmpty();
        assertThat(readAllOf(new TopicPartition("live", 0))).hasSize(100);
    }

    /**
     * A compaction round longer than the orphan grace: the first output's upload takes two hours (the
     * test's clock jumps), and another agent's sweep runs while the second output uploads. Registered
     * with the round's start time, the second output was expired by that sweep and its swap rejected;
     * registered when it is created, it is swapped in like the first.
     */
    @Test
    void aCompactionRoundLongerThanTheOrphanGraceKeepsItsLaterOutputs() {
        Topic topic = agent.topics().create(new NewTopic("long-round", 2, Map.of()), false);
        produce(topic, 2000, 10, 0);
        List<List<Record>> before = readAll(topic);
        Instant start = Instant.now().plusSeconds(1);
        AtomicReference<Instant> time = new AtomicReference<>(start);
        Clock clock = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return time.get();
            }
        };
        MaintenanceConfig graceful = config.withCleanup(Duration.ofHours(1), Duration.ofHours(1), Duration.ofHours(1));
        ObjectCleanup otherAgentsSweep = new ObjectCleanup(graceful, metadata, objects, meters);
        AtomicInteger uploads = new AtomicInteger();
        ObjectStore slow = (ObjectStore) Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("put")) {
                        int upload = uploads.incrementAndGet();
                        if (upload == 1) {
                            time.set(start.plus(Duration.ofHours(2)));
                        } else if (upload == 2) {
                            otherAgentsSweep.run(time.get());
                        }
                    }
                    try {
                        return method.invoke(objects, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });

        String summary =
                new SegmentCompaction(graceful, metadata, metadata, slow, "test-agent", clock, meters).run(start);

        assertThat(uploads.get()).as("outputs uploaded (%s)", summary).isEqualTo(2);
        assertThat(meters.get("floe.compaction.swaps")
                        .tag("outcome", "rejected")
                        .counter()
                        .count())
                .isZero();
        assertThat(meters.get("floe.compaction.swaps")
                        .tag("outcome", "rewritten")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(readAll(topic)).isEqualTo(before);
        for (int p = 0; p < PARTITIONS && p < topic.partitionCount(); p++) {
            assertThat(metadata.batches(new TopicPartition(topic.name(), p), 0, 1000))
                    .extracting(BatchCoordinate::object)
                    .as("partition %d in its output", p)
                    .hasSize(100)
                    .containsOnly(metadata.batches(new TopicPartition(topic.name(), p), 0, 1)
                            .get(0)
                            .object());
        }
    }

    /** An output whose upload fails is counted and logged; the round still compacts the other partition. */
    @Test
    void aCompactionChunkThatFailsDoesNotStopTheRoundsOtherPartitions() {
        Topic topic = agent.topics().create(new NewTopic("one-fails", 2, Map.of()), false);
        produce(topic, 2000, 10, 0);
        List<List<Record>> before = readAll(topic);
        AtomicInteger uploads = new AtomicInteger();
        ObjectStore failingOnce = (ObjectStore) Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("put") && uploads.incrementAndGet() == 1) {
                        throw new ObjectStoreException("injected: upload of " + args[0] + " failed", true);
                    }
                    try {
                        return method.invoke(objects, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Instant now = Instant.now().plusSeconds(1);

        String summary = new SegmentCompaction(
                        config, metadata, metadata, failingOnce, "test-agent", Clock.systemUTC(), meters)
                .run(now);

        assertThat(summary).contains("outputs=1", "failed=1");
        assertThat(meters.get("floe.compaction.failures").counter().count()).isEqualTo(1);
        assertThat(meters.get("floe.compaction.swaps")
                        .tag("outcome", "rewritten")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(readAll(topic)).isEqualTo(before);
        // The failed output's registration is the sweep's, once it is older than the grace.
        new ObjectCleanup(config, metadata, objects, meters).run(now.plusSeconds(1));
    }

    private void produce(Topic topic, int records, int perBatch, long timestamp) {
        List<CompletableFuture<AppendResult>> pending = new ArrayList<>();
        for (int first = 0; first < records; first += perBatch) {
            int partition = (first / perBatch) % topic.partitionCount();
            int count = Math.min(perBatch, records - first);
            SimpleRecord[] batch = new SimpleRecord[count];
            for (int i = 0; i < count; i++) {
                int n = first + i;
                batch[i] = new SimpleRecord(
                        timestamp == 0 ? System.currentTimeMillis() : timestamp,
                        ("k" + n % 977).getBytes(StandardCharsets.UTF_8),
                        ("value-" + n).getBytes(StandardCharsets.UTF_8));
            }
            pending.add(agent.produce()
                    .append(
                            topic,
                            partition,
                            MemoryRecords.withRecords(Compression.NONE, batch).buffer()));
            if (pending.size() >= 64) {
                pending.forEach(f -> assertThat(f.join()).isInstanceOf(AppendResult.Appended.class));
                pending.clear();
            }
        }
        pending.forEach(f -> assertThat(f.join()).isInstanceOf(AppendResult.Appended.class));
    }

    private List<List<Record>> readAll(Topic topic) {
        List<List<Record>> partitions = new ArrayList<>();
        for (int p = 0; p < topic.partitionCount(); p++) {
            partitions.add(readAllOf(new TopicPartition(topic.name(), p)));
        }
        return partitions;
    }

    private List<Record> readAllOf(TopicPartition tp) {
        List<Record> records = new ArrayList<>();
        long next = metadata.offsets(tp).logStartOffset();
        long end = metadata.offsets(tp).highWatermark();
        while (next < end) {
            PartitionResult result = agent.fetch()
                    .fetch(new FetchQuery(List.of(new PartitionQuery(tp, next, 1 << 20)), Duration.ZERO, 0, 1 << 20))
                    .join()
                    .partitions()
                    .get(0);
            assertThat(result).as("fetch of %s at %d", tp, next).isInstanceOf(PartitionResult.Data.class);
            for (RecordBatch batch : MemoryRecords.readableRecords(((PartitionResult.Data) result).contiguous())
                    .batches()) {
                assertThat(batch.isValid()).isTrue();
                for (Record record : batch) {
                    if (record.offset() >= next) {
                        records.add(record);
                    }
                }
                next = Math.max(next, batch.nextOffset());
            }
        }
        return records;
    }

    /** No batch row points to a missing object; no object in the store is unknown to the metadata. */
    private void assertStorageConsistent() {
        assertThat(metadata.referenceMismatches())
                .as("objects whose count is not their number of rows")
                .isEmpty();
        List<ObjectKey> stored =
                objects.list("segments/").stream().map(ObjectInfo::key).toList();
        assertThat(metadata.unknownObjects(stored)).as("objects no row knows").isEmpty();
        for (Topic topic : metadata.topics()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                TopicPartition tp = new TopicPartition(topic.name(), p);
                long next = 0;
                List<BatchCoordinate> page;
                while (!(page = metadata.batches(tp, next, 1000)).isEmpty()) {
                    for (BatchCoordinate batch : page) {
                        assertThat(stored)
                                .as("object of batch %d of %s", batch.baseOffset(), tp)
                                .contains(batch.object());
                        next = batch.nextOffset();
                    }
                }
            }
        }
    }
}
