package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.maintenance.MaintenanceConfig;
import io.floe.maintenance.MaintenanceMetadata;
import io.floe.maintenance.keys.KeyCompaction;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams' word count against a whole agent: a groupBy (so a repartition topic) and a count
 * (a state store with a compacted changelog topic), at-least-once. Streams creates its internal
 * topics with the AdminClient, runs its consumer group with the classic protocol and its own
 * assignor, and purges consumed repartition records with DeleteRecords (a failed purge is only
 * logged at debug level and retried). The last count emitted for each word must be the word's count
 * in the text. Streams cannot use {@code group.protocol=consumer}: its main consumer needs the classic
 * protocol for its own assignor, or the separate streams protocol of KIP-1071.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StreamsWordCountIT {

    private static final String INPUT = "text-lines";
    private static final String OUTPUT = "word-counts";
    private static final String APPLICATION = "wordcount";
    private static final int PARTITIONS = 3;
    private static final List<String> TEXT = List.of(
            "the quick brown fox jumps over the lazy dog",
            "The dog barks and the fox runs",
            "a lazy afternoon for a lazy dog",
            "quick quick QUICK",
            "over and over and over again");

    @TempDir
    Path dataDir;

    @TempDir
    Path stateDir;

    @Test
    void wordCountsAreRightAndTheInternalTopicsExist() throws Exception {
        try (InProcessFloe floe = InProcessFloe.start(dataDir)) {
            Records.createTopic(floe.bootstrap(), INPUT, PARTITIONS);
            Records.createTopic(floe.bootstrap(), OUTPUT, PARTITIONS);
            produceText(floe.bootstrap(), 20);
            Map<String, Long> expected = expectedCounts(20);

            try (KafkaStreams streams = new KafkaStreams(wordCount(), streamsConfig(floe.bootstrap()))) {
                streams.start();
                Map<String, Long> counts = awaitCounts(floe.bootstrap(), expected, Duration.ofSeconds(90));
                assertThat(counts).isEqualTo(expected);
                assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
            }

            try (Admin admin = Records.admin(floe.bootstrap())) {
                Set<String> topics = admin.listTopics().names().get();
                String changelog = APPLICATION + "-counts-changelog";
                String repartition = APPLICATION + "-counts-repartition";
                assertThat(topics).contains(changelog, repartition);
                ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
                Config config =
                        admin.describeConfigs(List.of(resource)).all().get().get(resource);
                assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value())
                        .isEqualTo("compact");
                assertThat(admin.listGroups().all().get())
                        .anySatisfy(group -> assertThat(group.groupId()).isEqualTo(APPLICATION));
            }
        }
    }

    /**
     * exactly_once_v2: every task commits its output, changelog writes and input offsets in one
     * transaction (transaction version 2, its offsets by TxnOffsetCommit checked against the group's
     * generation). Read with read_committed, the output holds each word's counts 1, 2, ... n, each
     * exactly once: no update lost, none repeated.
     */
    @Test
    void exactlyOnceEmitsEachCountOnce() throws Exception {
        try (InProcessFloe floe = InProcessFloe.start(dataDir)) {
            Records.createTopic(floe.bootstrap(), INPUT, PARTITIONS);
            Records.createTopic(floe.bootstrap(), OUTPUT, PARTITIONS);
            produceText(floe.bootstrap(), 20);
            Map<String, Long> expected = expectedCounts(20);
            Properties config = streamsConfig(floe.bootstrap());
            config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);

            try (KafkaStreams streams = new KafkaStreams(wordCount(), config)) {
                streams.start();
                Map<String, List<Long>> updates = awaitUpdates(floe.bootstrap(), expected, Duration.ofSeconds(90));
                expected.forEach((word, count) -> assertThat(updates.get(word))
                        .as("the counts emitted for '%s'", word)
                        .containsExactlyElementsOf(
                                LongStream.rangeClosed(1, count).boxed().toList()));
                assertThat(updates.keySet()).isEqualTo(expected.keySet());
            }
            try (Admin admin = Records.admin(floe.bootstrap())) {
                assertThat(admin.listTransactions().all().get()).isNotEmpty();
            }
        }
    }

    /** Every count emitted per word, in order, read committed, until each word's last count is the expected one. */
    private static Map<String, List<Long>> awaitUpdates(
            String bootstrap, Map<String, Long> expected, Duration timeout) {
        Map<String, List<Long>> updates = new TreeMap<>();
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(partition -> new TopicPartition(OUTPUT, partition))
                .toList();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<String, Long> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new LongDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (!caughtUp(updates, expected) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                    updates.computeIfAbsent(record.key(), word -> new ArrayList<>())
                            .add(record.value());
                }
            }
        }
        return updates;
    }

    private static boolean caughtUp(Map<String, List<Long>> updates, Map<String, Long> expected) {
        return expected.entrySet().stream().allMatch(entry -> {
            List<Long> counts = updates.get(entry.getKey());
            return counts != null && counts.get(counts.size() - 1).equals(entry.getValue());
        });
    }

    /**
     * The count store restores from its changelog after key compaction removed the superseded counts:
     * a fresh instance (local state wiped) goes on counting from the restored values.
     */
    @Test
    void countsSurviveARestoreFromACompactedChangelog() throws Exception {
        try (InProcessFloe floe = InProcessFloe.start(dataDir)) {
            Records.createTopic(floe.bootstrap(), INPUT, PARTITIONS);
            Records.createTopic(floe.bootstrap(), OUTPUT, PARTITIONS);
            Properties segmented = streamsConfig(floe.bootstrap());
            // The changelog's segments roll at a record more than 1 ms younger than their first: the two
            // rounds below lie in closed segments but for their last records (Kafka never cleans the
            // active segment; by default it rolls after 7 days).
            segmented.put(StreamsConfig.topicPrefix(TopicConfig.SEGMENT_MS_CONFIG), "1");
            try (KafkaStreams streams = new KafkaStreams(wordCount(), segmented)) {
                streams.start();
                // Two rounds, so each changelog partition holds batches before its last one (which key
                // compaction never cleans) with several counts of each word.
                produceText(floe.bootstrap(), 5);
                assertThat(awaitCounts(floe.bootstrap(), expectedCounts(5), Duration.ofSeconds(90)))
                        .isEqualTo(expectedCounts(5));
                produceText(floe.bootstrap(), 5);
                assertThat(awaitCounts(floe.bootstrap(), expectedCounts(10), Duration.ofSeconds(90)))
                        .isEqualTo(expectedCounts(10));
            }

            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            MaintenanceConfig config =
                    MaintenanceConfig.DEFAULTS.withCompaction(Duration.ofHours(1), 1L << 20, 1L << 18, Duration.ZERO);
            new KeyCompaction(
                            config,
                            MaintenanceMetadata.of(floe.metadata()),
                            floe.agent().objects(),
                            floe.agent().topics().configs(),
                            "test-agent",
                            Clock.systemUTC(),
                            meters)
                    .run(Instant.now());
            assertThat(meters.counter("floe.key.compaction.records.removed").count())
                    .as("superseded counts removed from the changelog")
                    .isPositive();

            try (KafkaStreams restarted = new KafkaStreams(wordCount(), streamsConfig(floe.bootstrap()))) {
                restarted.cleanUp();
                restarted.start();
                produceText(floe.bootstrap(), 10);
                assertThat(awaitCounts(floe.bootstrap(), expectedCounts(20), Duration.ofSeconds(90)))
                        .isEqualTo(expectedCounts(20));
            }
        }
    }

    private static org.apache.kafka.streams.Topology wordCount() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(INPUT)
                .flatMapValues(
                        line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter((key, word) -> !word.isEmpty())
                .groupBy((key, word) -> word)
                .count(Materialized.as("counts"))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private Properties streamsConfig(String bootstrap) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        // Purge consumed repartition records (DeleteRecords) often, not every 30 s, so the test exercises it.
        props.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 200);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // Streams does not leave its group on close: a restarted instance's first rebalance waits for the
        // closed one's session (45 s by default), as on Kafka. A short one keeps the restore test quick.
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
        return props;
    }

    /** Every line of the text {@code copies} times, keyed by line number so lines spread over partitions. */
    private static void produceText(String bootstrap, int copies) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = Records.producer(bootstrap, Map.of())) {
            for (int copy = 0; copy < copies; copy++) {
                for (int line = 0; line < TEXT.size(); line++) {
                    producer.send(new ProducerRecord<>(
                                    INPUT, Records.bytes("line-" + copy + "-" + line), Records.bytes(TEXT.get(line))))
                            .get();
                }
            }
        }
    }

    private static Map<String, Long> expectedCounts(int copies) {
        return IntStream.range(0, copies)
                .boxed()
                .flatMap(copy -> TEXT.stream())
                .flatMap(line -> Arrays.stream(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter(word -> !word.isEmpty())
                .collect(Collectors.groupingBy(word -> word, TreeMap::new, Collectors.counting()));
    }

    /** Reads the output topic with a plain consumer until the last count of every word is the expected one. */
    private static Map<String, Long> awaitCounts(String bootstrap, Map<String, Long> expected, Duration timeout) {
        return awaitCounts(bootstrap, expected, timeout, "read_uncommitted");
    }

    private static Map<String, Long> awaitCounts(
            String bootstrap, Map<String, Long> expected, Duration timeout, String isolation) {
        Map<String, Long> latest = new TreeMap<>();
        Properties props = new Properties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(partition -> new TopicPartition(OUTPUT, partition))
                .toList();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<String, Long> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new LongDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (!latest.equals(expected) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(record.key(), record.value());
                }
            }
        }
        return latest;
    }
}
