package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A default (idempotent, acks=all) kafka-clients producer and an assigned consumer against a real
 * agent over loopback.
 */
class ProduceConsumeIT {

    @TempDir
    Path dir;

    private AgentFixture fixture;

    @BeforeEach
    void start() {
        fixture = AgentFixture.withServer(dir);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void recordsProducedAreConsumedInOrderWithDenseOffsets() throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.bootstrap(),
                        ProducerConfig.LINGER_MS_CONFIG, 5,
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 500; i++) {
                sent.add(producer.send(new ProducerRecord<>("events", "key-" + i, "value-" + i)));
            }
            producer.flush();
        }
        List<Long> offsets = new ArrayList<>();
        for (Future<RecordMetadata> metadata : sent) {
            offsets.add(metadata.get().offset());
        }
        assertThat(offsets).isSorted().doesNotHaveDuplicates().startsWith(0L).endsWith(499L);

        List<ConsumerRecord<String, String>> received = consume(new TopicPartition("events", 0), 500);

        assertThat(received).extracting(ConsumerRecord::offset).containsExactlyElementsOf(offsets);
        assertThat(received)
                .extracting(ConsumerRecord::value)
                .startsWith("value-0", "value-1")
                .endsWith("value-499");
    }

    @Test
    void tailingConsumerSeesRecordsProducedAfterItStarted() throws Exception {
        TopicPartition partition = new TopicPartition("tail", 0);
        try (KafkaProducer<String, String> producer = producer();
                KafkaConsumer<String, String> consumer = consumer()) {
            producer.send(new ProducerRecord<>("tail", "first")).get();
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 30_000;
            int produced = 1;
            while (received.size() < 20 && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                if (produced < 20 && received.size() == produced) {
                    producer.send(new ProducerRecord<>("tail", "next-" + produced))
                            .get();
                    produced++;
                }
            }
            assertThat(received).hasSize(20);
            assertThat(received)
                    .extracting(ConsumerRecord::offset)
                    .containsExactlyElementsOf(
                            java.util.stream.LongStream.range(0, 20).boxed().toList());
            // The consumer fetched through an incremental session without ever being told to start over.
            assertThat(fixture.meters().find("floe.kafka.errors").counters()).isEmpty();
        }
    }

    private List<ConsumerRecord<String, String>> consume(TopicPartition partition, int count) {
        try (KafkaConsumer<String, String> consumer = consumer()) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 30_000;
            while (received.size() < count && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
            }
            return received;
        }
    }

    private KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        fixture.bootstrap(),
                        ProducerConfig.LINGER_MS_CONFIG,
                        0),
                new StringSerializer(),
                new StringSerializer());
    }

    private KafkaConsumer<String, String> consumer() {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        fixture.bootstrap(),
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                        100,
                        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                        100),
                new StringDeserializer(),
                new StringDeserializer());
    }
}
