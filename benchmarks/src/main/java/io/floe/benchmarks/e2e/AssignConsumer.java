package io.floe.benchmarks.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Consume-side measurement that needs no group coordinator: assign() to every partition of a topic, read from the
 * beginning until the expected number of records arrived, print one summary line. Runs as a child JVM, as
 * {@code ConsumerPerformance} does, with the same fetch settings that tool uses by default, so the two are
 * comparable apart from the group join.
 *
 * <p>Usage: {@code AssignConsumer BOOTSTRAP TOPIC RECORDS IDLE_TIMEOUT_MS}. Prints
 * {@code assign-consumer records=N bytes=B elapsed.ms=T}; exits 2 when it gave up before reading all records.
 */
public final class AssignConsumer {

    static final String SUMMARY_PREFIX = "assign-consumer";

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private AssignConsumer() {}

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("Usage: AssignConsumer BOOTSTRAP TOPIC RECORDS IDLE_TIMEOUT_MS");
            System.exit(1);
        }
        String topic = args[1];
        long expectedRecords = Long.parseLong(args[2]);
        long idleTimeoutNs = Duration.ofMillis(Long.parseLong(args[3])).toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config(args[0]))) {
            long startNs = System.nanoTime();
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long records = 0;
            long bytes = 0;
            long lastRecordNs = startNs;
            while (records < expectedRecords && System.nanoTime() - lastRecordNs < idleTimeoutNs) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(POLL_TIMEOUT);
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    records++;
                    bytes += (record.key() == null ? 0 : record.key().length)
                            + (record.value() == null ? 0 : record.value().length);
                }
                if (!batch.isEmpty()) {
                    lastRecordNs = System.nanoTime();
                }
            }
            long elapsedMs = Duration.ofNanos(lastRecordNs - startNs).toMillis();
            System.out.printf(
                    "%s records=%d bytes=%d elapsed.ms=%d partitions=%d%n",
                    SUMMARY_PREFIX, records, bytes, elapsedMs, partitions.size());
            if (records < expectedRecords) {
                System.out.printf(
                        "WARNING: read %d of %d records: no record for %d ms%n",
                        records,
                        expectedRecords,
                        Duration.ofNanos(idleTimeoutNs).toMillis());
                System.exit(2);
            }
        }
    }

    private static Properties config(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "assign-consumer");
        // ConsumerPerformance's defaults: --socket-buffer-size 2 MiB, --fetch-size 1 MiB, no CRC check.
        props.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, Integer.toString(2 * 1024 * 1024));
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(1024 * 1024));
        props.put(ConsumerConfig.CHECK_CRCS_CONFIG, "false");
        return props;
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " has no partitions in the cluster's metadata");
        }
        return infos.stream()
                .map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
    }
}
