package io.floe.benchmarks.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A consumer group catching up from the start of a topic, run as a child JVM: {@code MEMBERS} KafkaConsumers on
 * threads of their own subscribe with one group id ({@code auto.offset.reset=earliest}, offsets auto-committed every
 * 5 s and once more at the end) and read until the group has {@code RECORDS} records between them. Kafka's default
 * consumer settings otherwise.
 *
 * <p>Usage: {@code GroupConsumer BOOTSTRAP TOPIC GROUP RECORDS MEMBERS IDLE_TIMEOUT_MS}. Prints
 * {@code group-consumer records=N bytes=B join.ms=J elapsed.ms=T}: join.ms from the start to the first record,
 * elapsed.ms from the first record to the last; exits 2 when no record came for IDLE_TIMEOUT_MS before all arrived.
 */
public final class GroupConsumer {

    static final String SUMMARY_PREFIX = "group-consumer";
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private GroupConsumer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("Usage: GroupConsumer BOOTSTRAP TOPIC GROUP RECORDS MEMBERS IDLE_TIMEOUT_MS");
            System.exit(1);
        }
        String topic = args[1];
        String group = args[2];
        long expected = Long.parseLong(args[3]);
        int members = Integer.parseInt(args[4]);
        long idleTimeoutNs = Duration.ofMillis(Long.parseLong(args[5])).toNanos();
        Progress progress = new Progress(expected, idleTimeoutNs);
        List<Thread> threads = new ArrayList<>();
        for (int m = 0; m < members; m++) {
            Properties config = config(args[0], group, "group-consumer-" + m);
            Thread thread = new Thread(() -> consume(config, topic, progress), "group-consumer-" + m);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        long records = progress.records.get();
        long first = progress.firstNanos.get();
        long joinMs = first == 0 ? -1 : (first - progress.startNanos) / 1_000_000;
        long elapsedMs = Math.max(1, (progress.lastNanos.get() - first) / 1_000_000);
        System.out.printf(
                "%s records=%d bytes=%d join.ms=%d elapsed.ms=%d members=%d%n",
                SUMMARY_PREFIX, records, progress.bytes.get(), joinMs, elapsedMs, members);
        if (records < expected) {
            System.out.printf(
                    "WARNING: read %d of %d records: none for %d ms%n",
                    records, expected, Duration.ofNanos(idleTimeoutNs).toMillis());
            System.exit(2);
        }
    }

    /** Shared by the members: records and bytes read, when the first and last arrived. */
    private static final class Progress {
        final long expected;
        final long idleTimeoutNs;
        final long startNanos = System.nanoTime();
        final AtomicLong records = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong firstNanos = new AtomicLong();
        final AtomicLong lastNanos = new AtomicLong(System.nanoTime());

        Progress(long expected, long idleTimeoutNs) {
            this.expected = expected;
            this.idleTimeoutNs = idleTimeoutNs;
        }

        boolean done() {
            return records.get() >= expected || System.nanoTime() - lastNanos.get() >= idleTimeoutNs;
        }
    }

    private static void consume(Properties config, String topic, Progress progress) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(Set.of(topic));
            while (!progress.done()) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(POLL_TIMEOUT);
                if (batch.isEmpty()) {
                    continue;
                }
                long bytes = 0;
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    bytes += record.value() == null ? 0 : record.value().length;
                }
                long now = System.nanoTime();
                progress.firstNanos.compareAndSet(0, now);
                progress.lastNanos.accumulateAndGet(now, Math::max);
                progress.records.addAndGet(batch.count());
                progress.bytes.addAndGet(bytes);
            }
            consumer.commitSync();
        }
    }

    private static Properties config(String bootstrapServers, String group, String clientId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return props;
    }
}
