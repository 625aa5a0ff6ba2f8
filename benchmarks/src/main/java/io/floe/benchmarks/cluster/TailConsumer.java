package io.floe.benchmarks.cluster;

import java.nio.file.Path;
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
 * A consumer at the tail of the log while it is written, run as a child JVM: assign() to every partition of a topic
 * that is still empty, positions taken, then {@code tail-consumer ready} on stdout (the driver starts the producers
 * only then), and reading until {@code RECORDS} arrived. Every fetch it makes asks for what was just committed: the
 * reads an agent's cache is for. For each record it also takes the time from its create timestamp (set by the
 * producer in {@code send}) to its arrival here, into {@code HISTOGRAM_FILE}.
 *
 * <p>Usage: {@code TailConsumer BOOTSTRAP TOPIC RECORDS IDLE_TIMEOUT_MS HISTOGRAM_FILE}. Prints
 * {@code tail-consumer records=N bytes=B elapsed.ms=T first.epoch.ms=F last.epoch.ms=L}; exits 2 when no record came
 * for IDLE_TIMEOUT_MS before all had arrived.
 */
public final class TailConsumer {

    static final String SUMMARY_PREFIX = "tail-consumer";
    static final String READY_LINE = "tail-consumer ready";
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private TailConsumer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("Usage: TailConsumer BOOTSTRAP TOPIC RECORDS IDLE_TIMEOUT_MS HISTOGRAM_FILE");
            System.exit(1);
        }
        String topic = args[1];
        long expected = Long.parseLong(args[2]);
        long idleTimeoutNs = Duration.ofMillis(Long.parseLong(args[3])).toNanos();
        Path histogramFile = Path.of(args[4]);
        LatencyHistogram latency = new LatencyHistogram();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config(args[0]))) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            partitions.forEach(consumer::position);
            System.out.println(READY_LINE);
            System.out.flush();
            long records = 0;
            long bytes = 0;
            long firstEpochMs = 0;
            long lastEpochMs = 0;
            long lastProgressNs = System.nanoTime();
            while (records < expected && System.nanoTime() - lastProgressNs < idleTimeoutNs) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(POLL_TIMEOUT);
                if (batch.isEmpty()) {
                    continue;
                }
                long now = System.currentTimeMillis();
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    records++;
                    bytes += record.value() == null ? 0 : record.value().length;
                    latency.record(now - record.timestamp());
                }
                firstEpochMs = firstEpochMs == 0 ? now : firstEpochMs;
                lastEpochMs = now;
                lastProgressNs = System.nanoTime();
            }
            latency.write(histogramFile);
            System.out.printf("%s records=%d bytes=%d elapsed.ms=%d first.epoch.ms=%d last.epoch.ms=%d "
                    + "partitions=%d%n", SUMMARY_PREFIX, records, bytes, Math.max(1, lastEpochMs - firstEpochMs),
                    firstEpochMs, lastEpochMs, partitions.size());
            if (records < expected) {
                System.out.printf("WARNING: read %d of %d records: none for %d ms%n", records, expected,
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
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "tail-consumer");
        return props;
    }

    static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " has no partitions in the cluster's metadata");
        }
        return infos.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
    }
}
