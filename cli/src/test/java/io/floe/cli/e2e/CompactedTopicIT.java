package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.log.BatchCoordinate;
import io.floe.core.metadata.MetadataStore;
import io.floe.core.object.ObjectInfo;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStore;
import io.floe.core.topic.Topic;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.MaintenanceMetadata;
import io.floe.maintenance.cleanup.ObjectCleanup;
import io.floe.maintenance.keys.KeyCompaction;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compacted topic through real kafka-clients: an idempotent producer writes many updates of a set
 * of keys, some of them tombstones; key compaction runs while a consumer reads the topic over and over;
 * afterwards a consumer from the beginning gets exactly the newest record of each key at its original
 * offset, tombstones included until delete.retention.ms after their first cleaning and gone after;
 * the same producer goes on appending (its sequence state is in the metadata store, not in the batches
 * compaction removed); a record without a key is refused. Ends with a scan of the stores.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CompactedTopicIT {

    private static final String TOPIC = "profiles";
    private static final int PARTITIONS = 3;
    private static final int KEYS = 500;
    private static final int UPDATES = 30_000;
    private static final long DELETE_RETENTION_MS = 3_600_000;

    @TempDir
    Path dataDir;

    /** One record as a consumer saw it. */
    private record Seen(TopicPartition partition, long offset, String key, String value) {}

    @Test
    void consumersReadTheNewestRecordPerKeyAtItsOffsetDuringAndAfterCompaction() throws Exception {
        try (InProcessFloe floe = InProcessFloe.start(dataDir)) {
            createCompactedTopic(floe.bootstrap());
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            Random random = new Random(7);
            try (KafkaProducer<byte[], byte[]> producer = Records.producer(floe.bootstrap(), Map.of())) {
                produceUpdates(producer, random);
                List<Seen> original = read(floe.bootstrap(), partitions);
                assertThat(original).hasSize(UPDATES + PARTITIONS);
                Map<Long, Seen> originalByPosition = new HashMap<>();
                original.forEach(seen -> originalByPosition.put(position(seen), seen));
                List<Seen> survivors = newestPerKey(original, true);

                AtomicBoolean compacting = new AtomicBoolean(true);
                ExecutorService reader = Executors.newSingleThreadExecutor();
                Future<Integer> reads = reader.submit(() -> {
                    int passes = 0;
                    while (compacting.get() || passes == 0) {
                        List<Seen> seen = read(floe.bootstrap(), partitions);
                        seen.forEach(record -> assertThat(originalByPosition.get(position(record)))
                                .as("record read at offset %d of %s", record.offset(), record.partition())
                                .isEqualTo(record));
                        assertThat(seen).containsAll(survivors);
                        passes++;
                    }
                    return passes;
                });
                KeyCompaction keys = keyCompaction(floe);
                Instant first = Instant.now();
                assertThat(keys.run(first)).contains("cleaned=" + PARTITIONS);
                compacting.set(false);
                assertThat(reads.get()).isPositive();
                reader.shutdown();

                assertThat(read(floe.bootstrap(), partitions)).isEqualTo(survivors);
                try (KafkaConsumer<byte[], byte[]> consumer = Records.consumer(floe.bootstrap())) {
                    assertThat(consumer.beginningOffsets(partitions).values())
                            .as("the log start does not move")
                            .containsOnly(0L);
                }

                keys.run(first.plusMillis(DELETE_RETENTION_MS));
                List<Seen> compacted = read(floe.bootstrap(), partitions);
                assertThat(compacted).isEqualTo(newestPerKey(original, false));

                // The producer's sequences live in the metadata store: it appends on after compaction
                // removed batches it wrote.
                producer.send(new ProducerRecord<>(TOPIC, 0, Records.bytes("key-1"), Records.bytes("after")))
                        .get();
                assertThat(read(floe.bootstrap(), partitions.subList(0, 1)))
                        .last()
                        .satisfies(seen -> assertThat(seen.value()).isEqualTo("after"));
            }
            try (KafkaProducer<byte[], byte[]> producer = Records.producer(floe.bootstrap(), Map.of())) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(TOPIC, 0, null, Records.bytes("no key")))
                                .get())
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(InvalidRecordException.class);
            }
            new ObjectCleanup(config(), floe.metadata(), floe.agent().objects(), new SimpleMeterRegistry())
                    .run(Instant.now().plus(Duration.ofDays(1)));
            assertStorageConsistent(floe.metadata(), floe.agent().objects());
        }
    }

    private static void createCompactedTopic(String bootstrap) throws Exception {
        try (Admin admin = Records.admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)
                            .configs(Map.of(
                                    TopicConfig.CLEANUP_POLICY_CONFIG,
                                    TopicConfig.CLEANUP_POLICY_COMPACT,
                                    TopicConfig.DELETE_RETENTION_MS_CONFIG,
                                    Long.toString(DELETE_RETENTION_MS),
                                    // A segment rolls at a batch more than 1 ms younger than its first: all
                                    // but the last record of each partition lie in closed segments.
                                    TopicConfig.SEGMENT_MS_CONFIG,
                                    "1"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Updates of random keys over the partitions, one in eight a tombstone, a millisecond apart, then one
     * record per partition under a key of its own, sent alone and 10 ms later: it is the active segment,
     * which key compaction never cleans, so this keeps it out of the expectations.
     */
    private static void produceUpdates(KafkaProducer<byte[], byte[]> producer, Random random) throws Exception {
        long timestamp = System.currentTimeMillis() - 60_000;
        for (int i = 0; i < UPDATES; i++) {
            int key = random.nextInt(KEYS);
            byte[] value = random.nextInt(8) == 0 ? null : Records.bytes("value-" + i);
            producer.send(
                    new ProducerRecord<>(TOPIC, key % PARTITIONS, timestamp + i, Records.bytes("key-" + key), value));
        }
        producer.flush();
        for (int p = 0; p < PARTITIONS; p++) {
            producer.send(new ProducerRecord<>(
                            TOPIC, p, timestamp + UPDATES + 10, Records.bytes("last-" + p), Records.bytes("end")))
                    .get();
        }
    }

    private static KeyCompaction keyCompaction(InProcessFloe floe) {
        return new KeyCompaction(
                config(),
                MaintenanceMetadata.of(floe.metadata()),
                floe.agent().objects(),
                floe.agent().topics().configs(),
                "test-agent",
                Clock.systemUTC(),
                new SimpleMeterRegistry());
    }

    /** Replaced objects stay readable for an hour, for the reads planned before each swap. */
    private static MaintenanceConfig config() {
        return MaintenanceConfig.DEFAULTS
                .withCompaction(Duration.ofHours(1), 1L << 20, 1L << 18, Duration.ZERO)
                .withCleanup(Duration.ofHours(1), Duration.ofHours(1), Duration.ZERO);
    }

    private static List<Seen> read(String bootstrap, List<TopicPartition> partitions) {
        List<Seen> seen = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : Records.readToEnd(bootstrap, partitions, Duration.ofSeconds(60))) {
            seen.add(new Seen(
                    new TopicPartition(record.topic(), record.partition()),
                    record.offset(),
                    Records.text(record.key()),
                    Records.text(record.value())));
        }
        seen.sort((a, b) -> Long.compare(position(a), position(b)));
        return seen;
    }

    /** A total order over partitions and offsets. */
    private static long position(Seen seen) {
        return ((long) seen.partition().partition() << 40) + seen.offset();
    }

    private static List<Seen> newestPerKey(List<Seen> log, boolean withTombstones) {
        Map<String, Seen> newest = new LinkedHashMap<>();
        log.forEach(seen -> newest.put(seen.partition().partition() + "/" + seen.key(), seen));
        return newest.values().stream()
                .filter(seen -> withTombstones || seen.value() != null)
                .sorted((a, b) -> Long.compare(position(a), position(b)))
                .toList();
    }

    private static void assertStorageConsistent(MetadataStore metadata, ObjectStore objects) {
        List<ObjectKey> stored =
                objects.list("segments/").stream().map(ObjectInfo::key).toList();
        assertThat(metadata.unknownObjects(stored)).as("objects no row knows").isEmpty();
        assertThat(metadata.storageStats().pendingDeletions())
                .as("unreferenced objects left")
                .isZero();
        for (Topic topic : metadata.topics()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                io.floe.core.log.TopicPartition tp = new io.floe.core.log.TopicPartition(topic.name(), p);
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
