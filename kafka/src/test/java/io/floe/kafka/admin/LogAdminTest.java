package io.floe.kafka.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.topic.NewTopic;
import io.floe.kafka.AgentFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' Admin log operations (DeleteRecords, DescribeProducers, DescribeLogDirs,
 * reassignments, elections) and a consumer's position validation against a real agent.
 */
class LogAdminTest {

    private static final TopicPartition EVENTS = new TopicPartition("events", 0);
    private static final long POLL_DEADLINE_MS = 30_000;

    @TempDir
    Path dir;

    private AgentFixture fixture;
    private Admin admin;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
        fixture.agent().topics().create(new NewTopic("events", 2, Map.of()), false);
        admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000));
    }

    @AfterEach
    void stop() {
        admin.close();
        fixture.close();
    }

    @Test
    void deleteRecordsMovesTheLogStartForConsumersAndListOffsets() throws Exception {
        produce(10);

        assertThat(deleteBefore(EVENTS, 4)).isEqualTo(4);

        assertThat(admin.listOffsets(Map.of(EVENTS, OffsetSpec.earliest()))
                        .partitionResult(EVENTS)
                        .get()
                        .offset())
                .isEqualTo(4);
        List<ConsumerRecord<String, String>> fromBeginning = consumeFromBeginning(6);
        assertThat(fromBeginning).extracting(ConsumerRecord::offset).containsExactly(4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(fromBeginning.get(0).value()).isEqualTo("value-4");

        assertThat(deleteBefore(EVENTS, 2)).as("never backwards").isEqualTo(4);
        assertThatThrownBy(() -> deleteBefore(EVENTS, 11))
                .hasCauseInstanceOf(org.apache.kafka.common.errors.OffsetOutOfRangeException.class);
        assertThat(deleteBefore(EVENTS, RecordsToDelete.beforeOffset(-1).beforeOffset()))
                .as("-1: high watermark")
                .isEqualTo(10);
        assertThat(admin.listOffsets(Map.of(EVENTS, OffsetSpec.earliest()))
                        .partitionResult(EVENTS)
                        .get()
                        .offset())
                .isEqualTo(10);
    }

    @Test
    void fetchingBelowTheLogStartIsOutOfRange() throws Exception {
        produce(10);
        deleteBefore(EVENTS, 5);

        try (KafkaConsumer<String, String> consumer = consumer("none")) {
            consumer.assign(List.of(EVENTS));
            consumer.seek(EVENTS, 2);
            assertThatThrownBy(() -> pollUntilFailure(consumer))
                    .isInstanceOf(OffsetOutOfRangeException.class)
                    .satisfies(e -> assertThat(((OffsetOutOfRangeException) e).offsetOutOfRangePartitions())
                            .containsEntry(EVENTS, 2L));
        }
    }

    @Test
    void describeProducersListsTheIdempotentProducer() throws Exception {
        long before = System.currentTimeMillis();
        produce(3);

        List<ProducerState> producers = admin.describeProducers(List.of(EVENTS))
                .partitionResult(EVENTS)
                .get()
                .activeProducers();

        assertThat(producers).singleElement().satisfies(producer -> {
            assertThat(producer.producerId()).isNotNegative();
            assertThat(producer.producerEpoch()).isZero();
            assertThat(producer.lastSequence()).isEqualTo(2);
            assertThat(producer.lastTimestamp()).isGreaterThanOrEqualTo(before);
            assertThat(producer.coordinatorEpoch()).isEmpty();
            assertThat(producer.currentTransactionStartOffset()).isEmpty();
        });
        assertThat(admin.describeProducers(List.of(new TopicPartition("events", 1)))
                        .partitionResult(new TopicPartition("events", 1))
                        .get()
                        .activeProducers())
                .isEmpty();
    }

    @Test
    void describeLogDirsReportsTheObjectStoreWithPartitionSizes() throws Exception {
        produce(5);

        Map<String, LogDirDescription> dirs =
                admin.describeLogDirs(List.of(0)).allDescriptions().get().get(0);

        assertThat(dirs).containsOnlyKeys(fixture.agent().objects().describe());
        LogDirDescription dir = dirs.values().iterator().next();
        assertThat(dir.error()).isNull();
        assertThat(dir.totalBytes()).isEmpty();
        ReplicaInfo written = dir.replicaInfos().get(EVENTS);
        assertThat(written.size())
                .isPositive()
                .isEqualTo(fixture.agent()
                        .metadata()
                        .reads()
                        .partitionSizes("events")
                        .get(0));
        assertThat(written.offsetLag()).isZero();
        assertThat(dir.replicaInfos().get(new TopicPartition("events", 1)).size())
                .isZero();

        deleteBefore(EVENTS, 5);
        assertThat(admin.describeLogDirs(List.of(0))
                        .allDescriptions()
                        .get()
                        .get(0)
                        .values()
                        .iterator()
                        .next()
                        .replicaInfos()
                        .get(EVENTS)
                        .size())
                .as("batches below the log start no longer count")
                .isZero();
    }

    @Test
    void noReassignmentIsEverInProgress() throws Exception {
        assertThat(admin.listPartitionReassignments().reassignments().get()).isEmpty();
        assertThat(admin.listPartitionReassignments(Set.of(EVENTS, new TopicPartition("missing", 0)))
                        .reassignments()
                        .get())
                .isEmpty();
    }

    @Test
    void leaderElectionsAreNeverNeeded() throws Exception {
        TopicPartition missing = new TopicPartition("missing", 0);

        Map<TopicPartition, Optional<Throwable>> results = admin.electLeaders(
                        ElectionType.PREFERRED, Set.of(EVENTS, missing))
                .partitions()
                .get();

        assertThat(results.get(EVENTS)).containsInstanceOf(ElectionNotNeededException.class);
        assertThat(results.get(missing)).containsInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(admin.electLeaders(ElectionType.UNCLEAN, Set.of(EVENTS))
                        .partitions()
                        .get()
                        .get(EVENTS))
                .containsInstanceOf(ElectionNotNeededException.class);
        assertThat(admin.electLeaders(ElectionType.PREFERRED, null).partitions().get())
                .isEmpty();
    }

    @Test
    void aConsumerValidatesASeekWithALeaderEpoch() throws Exception {
        produce(5);

        try (KafkaConsumer<String, String> consumer = consumer("none")) {
            consumer.assign(List.of(EVENTS));
            consumer.seek(EVENTS, new OffsetAndMetadata(2, Optional.of(0), ""));
            List<ConsumerRecord<String, String>> received = poll(consumer, 3);

            assertThat(received).extracting(ConsumerRecord::offset).containsExactly(2L, 3L, 4L);
        }
        assertThat(fixture.meters()
                        .counter("floe.kafka.requests", "api", "OffsetForLeaderEpoch")
                        .count())
                .isPositive();
        assertThat(fixture.meters()
                        .find("floe.kafka.errors")
                        .tag("api", "OffsetForLeaderEpoch")
                        .counters())
                .isEmpty();
    }

    private long deleteBefore(TopicPartition partition, long offset) throws Exception {
        return admin.deleteRecords(Map.of(partition, RecordsToDelete.beforeOffset(offset)))
                .lowWatermarks()
                .get(partition)
                .get()
                .lowWatermark();
    }

    /** Sends {@code count} records to partition 0 with the default (idempotent) producer. */
    private void produce(int count) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>("events", 0, "key-" + i, "value-" + i))
                        .get();
            }
        }
    }

    private List<ConsumerRecord<String, String>> consumeFromBeginning(int count) {
        try (KafkaConsumer<String, String> consumer = consumer("earliest")) {
            consumer.assign(List.of(EVENTS));
            consumer.seekToBeginning(List.of(EVENTS));
            return poll(consumer, count);
        }
    }

    private static List<ConsumerRecord<String, String>> poll(KafkaConsumer<String, String> consumer, int count) {
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        long deadline = System.currentTimeMillis() + POLL_DEADLINE_MS;
        while (received.size() < count && System.currentTimeMillis() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(received::add);
        }
        return received;
    }

    private static void pollUntilFailure(KafkaConsumer<String, String> consumer) {
        long deadline = System.currentTimeMillis() + POLL_DEADLINE_MS;
        while (System.currentTimeMillis() < deadline) {
            consumer.poll(Duration.ofMillis(200));
        }
    }

    private KafkaConsumer<String, String> consumer(String offsetReset) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        fixture.bootstrap(),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        offsetReset,
                        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                        100),
                new StringDeserializer(),
                new StringDeserializer());
    }
}
