package io.floe.cli.e2e.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Whole-topic reads by assignment (no group), from the start to the end offsets found first. */
final class TopicReads {

    /** What a read found: the records in partition order, and whether it reached every end offset. */
    record Read(List<ConsumerRecord<String, String>> records, boolean complete, Map<TopicPartition, Long> ends) {}

    private TopicReads() {}

    /**
     * Every record of {@code topic}'s {@code partitions} up to their end offsets ({@code read_committed}:
     * the last stable offsets), within {@code timeout}.
     */
    static Read read(String bootstrap, String topic, int partitions, String isolation, Duration timeout) {
        List<TopicPartition> assigned = IntStream.range(0, partitions)
                .mapToObj(partition -> new TopicPartition(topic, partition))
                .toList();
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap, isolation)) {
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, timeout);
            while (!reached(consumer, ends)) {
                if (System.nanoTime() - deadline > 0) {
                    return new Read(records, false, ends);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            return new Read(records, true, ends);
        }
    }

    private static boolean reached(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends) {
        return ends.entrySet().stream()
                .allMatch(end -> consumer.position(end.getKey(), Duration.ofSeconds(30)) >= end.getValue());
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }
}
