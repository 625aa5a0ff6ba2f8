package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.testkit.fault.MetadataFaults;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real kafka-clients producers and consumers against a whole agent over loopback. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ProduceConsumeIT {

    private static final int PARTITIONS = 6;
    private static final int RECORDS = 100_000;

    @TempDir
    Path dataDir;

    @ParameterizedTest(name = "compression={0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void everyRecordComesBackByteIdenticalInOrderWithDenseOffsets(String compression) throws Exception {
        try (InProcessFloe floe = InProcessFloe.start(dataDir)) {
            String topic = "records-" + compression;
            Records.createTopic(floe.bootstrap(), topic, PARTITIONS);

            Map<TopicPartition, List<Sent>> sent = produce(
                    floe.bootstrap(), topic, RECORDS, Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression));

            List<ConsumerRecord<byte[], byte[]>> read =
                    Records.readAll(floe.bootstrap(), sent.keySet(), RECORDS, Duration.ofMinutes(2));
            assertSameLog(sent, read);
        }
    }

    @Test
    void producerRetriesOfCommitsWithUnknownOutcomeNeverDuplicate() throws Exception {
        // Every other commit is applied but answered as unknown, so its producers get a retriable
        // error and resend batches that are already stored: they must resolve to the original offsets.
        try (InProcessFloe floe = InProcessFloe.start(
                dataDir, store -> MetadataFaults.commitsAppliedButReportedUnknown(store, commit -> commit % 2 == 0))) {
            Records.createTopic(floe.bootstrap(), "retried", 2);

            Map<TopicPartition, List<Sent>> sent =
                    produce(floe.bootstrap(), "retried", 20_000, Map.of(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 10));

            List<ConsumerRecord<byte[], byte[]>> read =
                    Records.readAll(floe.bootstrap(), sent.keySet(), 20_000, Duration.ofMinutes(1));
            assertSameLog(sent, read);
            assertThat(read).hasSize(20_000);
        }
    }

    @Test
    void aGracefulRestartLosesNothingAcknowledged() throws Exception {
        Map<TopicPartition, List<Sent>> sent;
        try (InProcessFloe floe = InProcessFloe.start(dataDir)) {
            Records.createTopic(floe.bootstrap(), "durable", 3);
            sent = produce(floe.bootstrap(), "durable", 10_000, Map.of());
        }
        try (InProcessFloe restarted = InProcessFloe.start(dataDir)) {
            List<ConsumerRecord<byte[], byte[]>> read =
                    Records.readAll(restarted.bootstrap(), sent.keySet(), 10_000, Duration.ofMinutes(1));
            assertSameLog(sent, read);
        }
    }

    /** What the producer sent and where the agent acknowledged it. */
    record Sent(long offset, byte[] key, byte[] value, List<Header> headers) {}

    static Map<TopicPartition, List<Sent>> produce(
            String bootstrap, String topic, int count, Map<String, Object> overrides) throws Exception {
        Map<TopicPartition, List<Sent>> sent = new HashMap<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>(count);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(count);
        try (KafkaProducer<byte[], byte[]> producer = Records.producer(bootstrap, overrides)) {
            for (int i = 0; i < count; i++) {
                ProducerRecord<byte[], byte[]> record = record(topic, i);
                records.add(record);
                acks.add(producer.send(record));
            }
            producer.flush();
            for (int i = 0; i < count; i++) {
                RecordMetadata ack = acks.get(i).get();
                ProducerRecord<byte[], byte[]> record = records.get(i);
                sent.computeIfAbsent(new TopicPartition(topic, ack.partition()), tp -> new ArrayList<>())
                        .add(new Sent(
                                ack.offset(),
                                record.key(),
                                record.value(),
                                List.of(record.headers().toArray())));
            }
        }
        return sent;
    }

    static ProducerRecord<byte[], byte[]> record(String topic, int i) {
        byte[] key = Records.bytes("key-" + (i % 997));
        byte[] value = Records.bytes("value-" + i + "-" + "x".repeat(i % 200));
        List<Header> headers = List.of(
                new RecordHeader("seq", ByteBuffer.allocate(4).putInt(i).array()),
                new RecordHeader("origin", "e2e".getBytes(StandardCharsets.UTF_8)));
        return new ProducerRecord<>(topic, null, key, value, headers);
    }

    /**
     * Per partition: offsets dense from 0, every acknowledged record there exactly once and
     * byte-identical, at the offset its acknowledgement named. (A retry answered with
     * DUPLICATE_SEQUENCE_NUMBER is acknowledged with offset -1: then only its presence is checked.)
     */
    static void assertSameLog(Map<TopicPartition, List<Sent>> sent, List<ConsumerRecord<byte[], byte[]>> read) {
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> byPartition = new HashMap<>();
        read.forEach(r -> byPartition
                .computeIfAbsent(new TopicPartition(r.topic(), r.partition()), tp -> new ArrayList<>())
                .add(r));
        for (Map.Entry<TopicPartition, List<Sent>> entry : sent.entrySet()) {
            List<Sent> expected = entry.getValue();
            List<ConsumerRecord<byte[], byte[]>> actual = byPartition.getOrDefault(entry.getKey(), List.of());
            assertThat(actual).as("records of %s", entry.getKey()).hasSize(expected.size());
            assertThat(actual)
                    .extracting(ConsumerRecord::offset)
                    .as("offsets of %s", entry.getKey())
                    .containsExactlyElementsOf(IntStream.range(0, expected.size())
                            .mapToObj(i -> (long) i)
                            .toList());
            Map<String, ConsumerRecord<byte[], byte[]>> byValue = new HashMap<>();
            actual.forEach(r -> assertThat(byValue.put(Records.text(r.value()), r))
                    .as("duplicate")
                    .isNull());
            for (Sent want : expected) {
                ConsumerRecord<byte[], byte[]> got = byValue.get(Records.text(want.value()));
                assertThat(got)
                        .as("record %s of %s", Records.text(want.value()), entry.getKey())
                        .isNotNull();
                if (want.offset() >= 0) {
                    assertThat(got.offset()).isEqualTo(want.offset());
                }
                assertThat(got.key()).isEqualTo(want.key());
                assertThat(got.value()).isEqualTo(want.value());
                assertThat(got.headers().toArray()).containsExactlyElementsOf(want.headers());
            }
            assertOrderKept(entry.getKey(), expected, byValue);
        }
    }

    /** Records the producer sent to one partition are stored in the order it sent them. */
    private static void assertOrderKept(
            TopicPartition partition, List<Sent> sentInOrder, Map<String, ConsumerRecord<byte[], byte[]>> byValue) {
        long previous = -1;
        for (Sent want : sentInOrder) {
            long offset = byValue.get(Records.text(want.value())).offset();
            assertThat(offset).as("order in %s", partition).isGreaterThan(previous);
            previous = offset;
        }
    }
}
