package io.floe.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.agent.Agent;
import io.floe.agent.AgentConfig;
import io.floe.agent.AgentMetadata;
import io.floe.agent.fetch.FetchQuery;
import io.floe.agent.fetch.PartitionQuery;
import io.floe.agent.fetch.PartitionResult;
import io.floe.agent.fetch.TimestampedOffset;
import io.floe.agent.produce.InvalidBatchException;
import io.floe.core.log.BatchCoordinate;
import io.floe.core.log.LogOffsets;
import io.floe.core.log.TopicPartition;
import io.floe.core.metadata.AppendResult;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.NewTopic;
import io.floe.core.topic.Topic;
import io.floe.maintenance.cleanup.ObjectCleanup;
import io.floe.maintenance.compaction.SegmentCompaction;
import io.floe.maintenance.keys.KeyCompaction;
import io.floe.metadata.sql.SqlMetadataStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * Key compaction against a real agent on SQLite and a local object store: the newest record of each
 * key stays at its offset, tombstones stay for delete.retention.ms after their first cleaning and then
 * go, readers during compaction see only records that were there at their offsets and every survivor,
 * and reads and offset lookups work across the gaps. After each test a scan finds no batch row pointing
 * to a missing object and no object the metadata does not know.
 */
@Timeout(300)
class KeyCompactionIT {

    private static final long DELETE_RETENTION_MS = 60_000;
    private static final int KEYS = 400;

    @TempDir
    Path dataDir;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Random random = new Random(42);
    private MetadataStore metadata;
    private ObjectStore objects;
    private Agent agent;
    private MaintenanceConfig config;

    /** One record as a consumer sees it: its offset, key and value (null for a tombstone). */
    private record Seen(long offset, String key, String value) {}

    @BeforeEach
    void start() {
        metadata = SqlMetadataStore.openSqlite(dataDir.resolve("metadata.db"));
        objects = new LocalObjectStore(dataDir.resolve("objects"));
        // No object cache: every read goes to the object store, so reads of rewritten and deleted objects
        // really happen.
        agent = Agent.start(
                AgentConfig.defaults()
                        .withFlush(Duration.ofMillis(2), 64 * 1024)
                        .withCacheBytesMax(0),
                AgentMetadata.of(metadata),
                objects,
                meters,
                Clock.systemUTC());
        config = MaintenanceConfig.DEFAULTS
                .withCompaction(Duration.ofHours(1), 1L << 20, 1L << 18, Duration.ZERO)
                .withCleanup(Duration.ofHours(1), Duration.ZERO, Duration.ZERO);
    }

    @AfterEach
    void stop() {
        try {
            new ObjectCleanup(config, metadata, objects, meters)
                    .run(Instant.now().plus(Duration.ofDays(1)));
            assertStorageConsistent();
        } finally {
            agent.close();
            metadata.close();
            objects.close();
        }
    }

    @Test
    void keepsTheNewestRecordPerKeyAtItsOffsetAndTombstonesUntilTheirHorizon() {
        Topic topic = compactedTopic("changelog", 2, Map.of());
        produceUpdates(topic, 20_000, 50);
        Map<TopicPartition, List<Seen>> original = readAll(topic);
        Map<TopicPartition, LogOffsets> markers = markers(topic);

        Instant first = Instant.now();
        KeyCompaction keys = keyCompaction();
        assertThat(keys.run(first)).contains("cleaned=2");

        Map<TopicPartition, List<Seen>> compacted = readAll(topic);
        assertThat(compacted).isEqualTo(newestPerKey(original, true));
        assertThat(markers(topic)).as("log start and high watermark never move").isEqualTo(markers);
        assertThat(compacted.values().stream().flatMap(List::stream).filter(seen -> seen.value() == null))
                .as("tombstones kept until delete.retention.ms after their first cleaning")
                .isNotEmpty();
        assertThat(meters.counter("floe.key.compaction.records.removed").count())
                .isPositive();
        assertThat(meters.counter("floe.key.compaction.bytes.written").count()).isPositive();
        assertThat(meters.counter("floe.key.compaction.batches.removed").count())
                .isPositive();

        assertThat(keys.run(first.plusSeconds(1)))
                .as("nothing dirty, no tombstone due")
                .isEmpty();
        assertThat(keys.run(first.plusMillis(DELETE_RETENTION_MS - 1))).isEmpty();
        assertThat(keys.run(first.plusMillis(DELETE_RETENTION_MS))).contains("cleaned=2");

        assertThat(readAll(topic)).isEqualTo(newestPerKey(original, false));
        assertThat(markers(topic)).isEqualTo(markers);
        assertThat(meters.get("floe.key.compaction.lag").timeGauge().value(TimeUnit.MILLISECONDS))
                .as("everything below the active segment (the log's last batch) is clean")
                .isZero();
    }

    @Test
    void laterPassesCleanOnlyWhatIsDirtyAndAgreeWithAFreshStart() {
        Topic topic = compactedTopic("updates", 1, Map.of());
        produceUpdates(topic, 6_000, 40);
        KeyCompaction keys = keyCompaction();
        Instant now = Instant.now();
        assertThat(keys.run(now)).contains("cleaned=1");
        // A second generation: updates, new tombstones, and keys deleted before written again.
        produceUpdates(topic, 6_000, 40);
        Map<TopicPartition, List<Seen>> before = readAll(topic);
        now = Instant.now();

        assertThat(keys.run(now)).contains("cleaned=1");
        assertThat(readAll(topic)).isEqualTo(newestPerKey(before, true));

        // An agent that takes the lease over knows no clean offset: its first pass starts at the log start
        // (once the outputs just written are older than the compaction minimum age, zero here).
        assertThat(keyCompaction().run(Instant.now())).contains("cleaned=1");
        assertThat(readAll(topic)).isEqualTo(newestPerKey(before, true));
    }

    @Test
    void theBatchesPastTheCleanableEndGoAlongWhenTheirObjectWasCleaned() {
        Topic topic = compactedTopic("carried", 1, Map.of());
        TopicPartition tp = new TopicPartition("carried", 0);
        produceUpdates(topic, 4_000, 40);
        Map<TopicPartition, List<Seen>> before = readAll(topic);
        new SegmentCompaction(config, metadata, metadata, objects, "test-agent", Clock.systemUTC(), meters)
                .run(Instant.now());
        List<BatchCoordinate> rows = metadata.batches(tp, 0, 10_000);
        ObjectKey compacted = rows.get(rows.size() - 1).object();
        assertThat(rows)
                .extracting(BatchCoordinate::object)
                .as("one per-partition object")
                .containsOnly(compacted);

        assertThat(keyCompaction().run(Instant.now())).contains("cleaned=1");

        assertThat(metadata.batchesIn(List.of(compacted)))
                .as("the log's last batch moved along, unchanged")
                .isEmpty();
        assertThat(metadata.dueDeletions(Instant.now().plusSeconds(1), 100))
                .extracting(d -> d.key())
                .contains(compacted);
        assertThat(readAll(topic)).isEqualTo(newestPerKey(before, true));
        List<BatchCoordinate> after = metadata.batches(tp, 0, 10_000);
        assertThat(after.get(after.size() - 1))
                .usingRecursiveComparison()
                .ignoringFields("object", "range.position")
                .isEqualTo(rows.get(rows.size() - 1));
    }

    @Test
    void readsDuringCompactionSeeOnlyOriginalRecordsAtTheirOffsetsAndEverySurvivor() throws Exception {
        Topic topic = compactedTopic("state", 3, Map.of());
        produceUpdates(topic, 30_000, 25);
        Map<TopicPartition, List<Seen>> original = readAll(topic);
        Map<TopicPartition, Map<Long, Seen>> byOffset = new HashMap<>();
        original.forEach((tp, seen) -> {
            Map<Long, Seen> offsets = new HashMap<>();
            seen.forEach(record -> offsets.put(record.offset(), record));
            byOffset.put(tp, offsets);
        });
        Map<TopicPartition, List<Seen>> survivors = newestPerKey(original, true);

        AtomicBoolean compacting = new AtomicBoolean(true);
        ExecutorService reader = Executors.newSingleThreadExecutor();
        Future<Integer> reads = reader.submit(() -> {
            int passes = 0;
            while (compacting.get() || passes == 0) {
                Map<TopicPartition, List<Seen>> seen = readAll(topic);
                seen.forEach((tp, records) -> {
                    assertThat(byOffset.get(tp)).as("records read from %s", tp).containsAllEntriesOf(index(records));
                    assertThat(records).as("survivors read from %s", tp).containsAll(survivors.get(tp));
                });
                passes++;
            }
            return passes;
        });
        // Inputs stay readable for the delete delay, as fetches planned before a swap need.
        MaintenanceConfig delayed = config.withCleanup(Duration.ofHours(1), Duration.ofHours(1), Duration.ZERO);
        KeyCompaction keys = new KeyCompaction(
                delayed,
                MaintenanceMetadata.of(metadata),
                objects,
                agent.topics().configs(),
                "test-agent",
                Clock.systemUTC(),
                meters);
        assertThat(keys.run(Instant.now())).contains("cleaned=3");
        compacting.set(false);
        assertThat(reads.get()).isPositive();
        reader.shutdown();

        new ObjectCleanup(delayed, metadata, objects, meters).run(Instant.now().plus(Duration.ofHours(2)));
        assertThat(readAll(topic)).isEqualTo(survivors);
    }

    @Test
    void readsAndOffsetLookupsStartAtTheNextBatchInsideAGap() {
        Topic topic = compactedTopic("gaps", 1, Map.of());
        TopicPartition tp = new TopicPartition("gaps", 0);
        long now = System.currentTimeMillis();
        produce(topic, 0, List.of(record("a", "1", now - 3000), record("b", "1", now - 3000)));
        produce(topic, 0, List.of(record("a", "2", now - 2000), record("b", "2", now - 2000)));
        produce(topic, 0, List.of(record("c", "1", now - 1000)));
        produce(topic, 0, List.of(record("a", "3", now)));

        keyCompaction().run(Instant.now());

        // The log's last batch (the active segment) is not cleaned, nor does it count as newer: a2 stays.
        assertThat(metadata.batches(tp, 0, 10))
                .extracting(BatchCoordinate::baseOffset)
                .containsExactly(2L, 4L, 5L);
        assertThat(readFrom(tp, 0)).extracting(Seen::offset).containsExactly(2L, 3L, 4L, 5L);
        assertThat(readFrom(tp, 1)).extracting(Seen::offset).containsExactly(2L, 3L, 4L, 5L);
        assertThat(metadata.offsets(tp)).isEqualTo(new LogOffsets(0, 6));
        assertThat(agent.offsets().firstOffsetAtOrAfter(tp, now - 3000)).hasValue(new TimestampedOffset(2, now - 2000));
        assertThat(agent.offsets().maxTimestamp(tp)).hasValue(new TimestampedOffset(5, now));
    }

    @Test
    void aCompactedTopicRefusesRecordsWithoutAKey() {
        Topic topic = compactedTopic("keyed", 1, Map.of());
        ByteBuffer keyless = MemoryRecords.withRecords(
                        Compression.NONE, new SimpleRecord(System.currentTimeMillis(), null, bytes("v")))
                .buffer();

        assertThatThrownBy(() -> agent.produce().append(topic, 0, keyless))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class,
                        e -> assertThat(e.reason()).isEqualTo(InvalidBatchException.Reason.INVALID_RECORD))
                .hasMessageContaining("Compacted topic cannot accept message without key");
    }

    private KeyCompaction keyCompaction() {
        return new KeyCompaction(
                config,
                MaintenanceMetadata.of(metadata),
                objects,
                agent.topics().configs(),
                "test-agent",
                Clock.systemUTC(),
                meters);
    }

    private Topic compactedTopic(String name, int partitions, Map<String, String> configs) {
        Map<String, String> all = new HashMap<>(configs);
        all.put("cleanup.policy", "compact");
        all.put("delete.retention.ms", Long.toString(DELETE_RETENTION_MS));
        // Each batch is a segment of its own (their timestamps are 2 ms apart or more): only the log's last
        // batch is in the active segment, which key compaction never cleans.
        all.putIfAbsent("segment.ms", "1");
        return agent.topics().create(new NewTopic(name, partitions, all), false);
    }

    /**
     * {@code records} updates of random keys, one in ten a tombstone, in batches of {@code perBatch} going
     * round the partitions, then one last batch per partition with a key of its own (the log's last batch
     * is the active segment, never cleaned; this keeps it out of the expectations). The batches'
     * timestamps are 2 ms apart, in the past.
     */
    private void produceUpdates(Topic topic, int records, int perBatch) {
        List<CompletableFuture<AppendResult>> pending = new ArrayList<>();
        long timestamp = System.currentTimeMillis() - 2L * records / perBatch - 1000;
        for (int first = 0; first < records; first += perBatch) {
            List<SimpleRecord> batch = new ArrayList<>();
            timestamp += 2;
            for (int i = first; i < Math.min(records, first + perBatch); i++) {
                String key = "key-" + random.nextInt(KEYS);
                batch.add(record(key, random.nextInt(10) == 0 ? null : "value-" + i, timestamp));
            }
            int partition = (first / perBatch) % topic.partitionCount();
            pending.add(append(topic, partition, batch));
            if (pending.size() >= 64) {
                pending.forEach(f -> assertThat(f.join()).isInstanceOf(AppendResult.Appended.class));
                pending.clear();
            }
        }
        pending.forEach(f -> assertThat(f.join()).isInstanceOf(AppendResult.Appended.class));
        for (int p = 0; p < topic.partitionCount(); p++) {
            produce(topic, p, List.of(record("last-" + random.nextLong(), "end", timestamp + 2)));
        }
    }

    private void produce(Topic topic, int partition, List<SimpleRecord> records) {
        assertThat(append(topic, partition, records).join()).isInstanceOf(AppendResult.Appended.class);
    }

    private CompletableFuture<AppendResult> append(Topic topic, int partition, List<SimpleRecord> records) {
        Compression compression =
                random.nextBoolean() ? Compression.NONE : Compression.lz4().build();
        return agent.produce()
                .append(
                        topic,
                        partition,
                        MemoryRecords.withRecords(compression, records.toArray(SimpleRecord[]::new))
                                .buffer());
    }

    private static SimpleRecord record(String key, String value, long timestamp) {
        return new SimpleRecord(timestamp, bytes(key), value == null ? null : bytes(value));
    }

    /** The newest record of each key, in offset order; tombstones only when {@code withTombstones}. */
    private static Map<TopicPartition, List<Seen>> newestPerKey(
            Map<TopicPartition, List<Seen>> log, boolean withTombstones) {
        Map<TopicPartition, List<Seen>> expected = new TreeMap<>(KeyCompactionIT::compare);
        log.forEach((tp, records) -> {
            Map<String, Seen> newest = new LinkedHashMap<>();
            records.forEach(record -> newest.put(record.key(), record));
            expected.put(
                    tp,
                    newest.values().stream()
                            .filter(record -> withTombstones || record.value() != null)
                            .sorted((a, b) -> Long.compare(a.offset(), b.offset()))
                            .toList());
        });
        return expected;
    }

    private static Map<Long, Seen> index(List<Seen> records) {
        Map<Long, Seen> index = new HashMap<>();
        records.forEach(record -> index.put(record.offset(), record));
        return index;
    }

    private Map<TopicPartition, LogOffsets> markers(Topic topic) {
        Map<TopicPartition, LogOffsets> markers = new TreeMap<>(KeyCompactionIT::compare);
        for (int p = 0; p < topic.partitionCount(); p++) {
            TopicPartition tp = new TopicPartition(topic.name(), p);
            markers.put(tp, metadata.offsets(tp));
        }
        return markers;
    }

    private Map<TopicPartition, List<Seen>> readAll(Topic topic) {
        Map<TopicPartition, List<Seen>> partitions = new TreeMap<>(KeyCompactionIT::compare);
        for (int p = 0; p < topic.partitionCount(); p++) {
            TopicPartition tp = new TopicPartition(topic.name(), p);
            partitions.put(tp, readFrom(tp, metadata.offsets(tp).logStartOffset()));
        }
        return partitions;
    }

    /** Every record from {@code from} to the high watermark, as a consumer reads them: fetch by fetch. */
    private List<Seen> readFrom(TopicPartition tp, long from) {
        List<Seen> records = new ArrayList<>();
        long next = from;
        long end = metadata.offsets(tp).highWatermark();
        while (next < end) {
            PartitionResult result = agent.fetch()
                    .fetch(new FetchQuery(List.of(new PartitionQuery(tp, next, 1 << 20)), Duration.ZERO, 0, 1 << 20))
                    .join()
                    .partitions()
                    .get(0);
            assertThat(result).as("fetch of %s at %d", tp, next).isInstanceOf(PartitionResult.Data.class);
            Iterable<? extends RecordBatch> batches = MemoryRecords.readableRecords(
                            ((PartitionResult.Data) result).contiguous())
                    .batches();
            long before = next;
            for (RecordBatch batch : batches) {
                assertThat(batch.isValid()).isTrue();
                for (Record record : batch) {
                    if (record.offset() >= next) {
                        records.add(new Seen(record.offset(), text(record.key()), text(record.value())));
                    }
                }
                next = Math.max(next, batch.nextOffset());
            }
            assertThat(next)
                    .as("a fetch at %d of %s below its high watermark %d returned no batch", before, tp, end)
                    .isGreaterThan(before);
        }
        return records;
    }

    /** No batch row points to a missing object; no object in the store is unknown to the metadata. */
    private void assertStorageConsistent() {
        List<ObjectKey> stored =
                objects.list("segments/").stream().map(ObjectInfo::key).toList();
        assertThat(metadata.unknownObjects(stored)).as("objects no row knows").isEmpty();
        assertThat(metadata.storageStats().pendingDeletions())
                .as("unreferenced objects left")
                .isZero();
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

    private static int compare(TopicPartition a, TopicPartition b) {
        int byTopic = a.topic().compareTo(b.topic());
        return byTopic != 0 ? byTopic : Integer.compare(a.partition(), b.partition());
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
