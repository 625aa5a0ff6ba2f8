package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.topic.NewTopic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' transactional producer (transaction version 2, as Floe advertises it) and
 * read_committed and read_uncommitted consumers against a real agent on SQLite over loopback.
 */
class TransactionsIT {

    private static final TopicPartition OUT = new TopicPartition("out", 0);
    private static final TopicPartition IN = new TopicPartition("in", 0);

    @TempDir
    Path dir;

    private AgentFixture fixture;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
        fixture.agent().topics().create(new NewTopic("out", 1, Map.of()), false);
        fixture.agent().topics().create(new NewTopic("in", 1, Map.of()), false);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void committedRecordsAndOffsetsAreSeenAndAbortedRecordsOnlyByReadUncommitted() throws Exception {
        try (KafkaProducer<String, String> producer = producer("tx-it")) {
            producer.initTransactions();
            producer.beginTransaction();
            send(producer, "c1-a", "c1-b", "c1-c");
            producer.sendOffsetsToTransaction(Map.of(IN, new OffsetAndMetadata(5)), groupMetadata("group-it"));
            producer.commitTransaction();

            producer.beginTransaction();
            send(producer, "aborted-a", "aborted-b");
            producer.flush();
            producer.abortTransaction();

            producer.beginTransaction();
            send(producer, "c2-a", "c2-b");
            producer.commitTransaction();
        }

        assertThat(values(consume("read_uncommitted", 7)))
                .containsExactly("c1-a", "c1-b", "c1-c", "aborted-a", "aborted-b", "c2-a", "c2-b");

        try (Admin admin = admin()) {
            assertThat(admin.listConsumerGroupOffsets("group-it")
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .get(IN)
                            .offset())
                    .isEqualTo(5);
            TransactionDescription described = admin.describeTransactions(List.of("tx-it"))
                    .description("tx-it")
                    .get();
            assertThat(described.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
            assertThat(admin.listTransactions().all().get())
                    .extracting(TransactionListing::transactionalId)
                    .containsExactly("tx-it");
        }
        assertThat(values(consume("read_committed", 5))).containsExactly("c1-a", "c1-b", "c1-c", "c2-a", "c2-b");
    }

    @Test
    void aNewProducerWithTheSameTransactionalIdFencesTheOldOne() throws Exception {
        KafkaProducer<String, String> zombie = producer("tx-fence");
        try {
            zombie.initTransactions();
            zombie.beginTransaction();
            send(zombie, "zombie");
            zombie.flush();
            try (KafkaProducer<String, String> successor = producer("tx-fence")) {
                successor.initTransactions();
                successor.beginTransaction();
                send(successor, "successor");
                successor.commitTransaction();
            }
            assertThatThrownBy(zombie::commitTransaction).isInstanceOf(KafkaException.class);
        } finally {
            zombie.close(Duration.ZERO);
        }

        assertThat(values(consume("read_committed", 1))).containsExactly("successor");
    }

    /** What {@code kafka-transactions.sh abort} does with a hanging transaction: DescribeProducers, then WriteTxnMarkers. */
    @Test
    void anOperatorAbortsAHangingTransactionThroughTheAdminClient() throws Exception {
        KafkaProducer<String, String> hanging = producer("tx-hanging");
        try (Admin admin = admin()) {
            hanging.initTransactions();
            hanging.beginTransaction();
            send(hanging, "hanging");
            hanging.flush();

            ProducerState state = admin.describeProducers(List.of(OUT))
                    .partitionResult(OUT)
                    .get()
                    .activeProducers()
                    .get(0);
            assertThat(state.currentTransactionStartOffset()).hasValue(0);
            admin.abortTransaction(new AbortTransactionSpec(
                            OUT,
                            state.producerId(),
                            (short) state.producerEpoch(),
                            state.coordinatorEpoch().orElse(0)))
                    .all()
                    .get();

            assertThat(admin.describeProducers(List.of(OUT))
                            .partitionResult(OUT)
                            .get()
                            .activeProducers()
                            .get(0)
                            .currentTransactionStartOffset())
                    .isEmpty();
            assertThat(consume("read_committed", 0)).isEmpty();
        } finally {
            hanging.close(Duration.ZERO);
        }
    }

    @Test
    void aTransactionPastItsTimeoutIsAbortedAndItsProducerFenced() throws Exception {
        KafkaProducer<String, String> producer =
                producer("tx-timeout", Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 1000));
        try (Admin admin = admin()) {
            producer.initTransactions();
            producer.beginTransaction();
            send(producer, "too-late");
            producer.flush();

            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            TransactionState state = TransactionState.ONGOING;
            while (state != TransactionState.COMPLETE_ABORT && System.nanoTime() < deadline) {
                Thread.sleep(500);
                state = admin.describeTransactions(List.of("tx-timeout"))
                        .description("tx-timeout")
                        .get()
                        .state();
            }

            assertThat(state).isEqualTo(TransactionState.COMPLETE_ABORT);
            assertThat(fixture.meters().counter("floe.transactions.timed.out").count())
                    .isEqualTo(1);
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(KafkaException.class);
        } finally {
            producer.close(Duration.ZERO);
        }
    }

    private static void send(KafkaProducer<String, String> producer, String... values) {
        for (String value : values) {
            producer.send(new ProducerRecord<>(OUT.topic(), OUT.partition(), value, value));
        }
    }

    private KafkaProducer<String, String> producer(String transactionalId) {
        return producer(transactionalId, Map.of());
    }

    private KafkaProducer<String, String> producer(String transactionalId, Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.putAll(overrides);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /** Every record up to the end of the partition the isolation level shows, after {@code atLeast} arrived. */
    private List<ConsumerRecord<String, String>> consume(String isolation, int atLeast) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(OUT));
            consumer.seekToBeginning(List.of(OUT));
            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            long end = consumer.endOffsets(List.of(OUT)).get(OUT);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while ((received.size() < atLeast || consumer.position(OUT) < end) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
            }
            return received;
        }
    }

    /** The metadata of a consumer of {@code groupId} that has not joined (no generation), as a standalone consumer sends it. */
    private ConsumerGroupMetadata groupMetadata(String groupId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            return consumer.groupMetadata();
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap()));
    }

    private static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }
}
