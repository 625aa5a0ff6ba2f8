package io.floe.cli.e2e.faults;

import io.floe.cli.e2e.Records;
import io.floe.cli.e2e.faults.FaultRunChecker.Observation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A fresh consumer (no group) reading every partition of a topic from the beginning up to the end
 * offsets it finds when it starts, as Jepsen's final reads do. It says whether it got there before its
 * deadline: an incomplete read would show acknowledged records as lost.
 */
final class FinalRead {

    /** What a read saw, the end offsets it read to, and whether it reached them all. */
    record Outcome(String reader, List<Observation> records, Map<TopicPartition, Long> endOffsets, boolean complete) {}

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    private static final Duration POSITION_TIMEOUT = Duration.ofSeconds(10);

    private FinalRead() {}

    static Outcome read(String reader, String bootstrap, String topic, int partitions, Duration timeout) {
        return read(reader, bootstrap, topic, partitions, IsolationLevel.READ_UNCOMMITTED, timeout);
    }

    /**
     * A read at {@code isolation}: read_committed reads up to the last stable offsets and leaves out
     * the records of aborted transactions.
     */
    static Outcome read(
            String reader, String bootstrap, String topic, int partitions, IsolationLevel isolation, Duration timeout) {
        List<TopicPartition> all = IntStream.range(0, partitions)
                .mapToObj(p -> new TopicPartition(topic, p))
                .toList();
        List<Observation> records = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties(bootstrap, reader, isolation))) {
            consumer.assign(all);
            consumer.seekToBeginning(all);
            Map<TopicPartition, Long> ends = consumer.endOffsets(all, timeout);
            boolean complete = false;
            while (!complete && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL_TIMEOUT)) {
                    records.add(
                            new Observation(reader, record.partition(), record.offset(), Records.text(record.value())));
                }
                complete = ends.entrySet().stream()
                        .allMatch(end -> consumer.position(end.getKey(), POSITION_TIMEOUT) >= end.getValue());
            }
            return new Outcome(reader, records, ends, complete);
        }
    }

    private static Properties properties(String bootstrap, String reader, IsolationLevel isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, reader);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return props;
    }
}
