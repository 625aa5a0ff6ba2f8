package io.floe.benchmarks.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Consumers at the tail of the log while it is written, run as a child JVM: {@code THREADS} KafkaConsumers on threads
 * of their own, each assign()ed every THREADS-th partition of a topic that is still empty, positions taken, then
 * {@code tail-consumer ready} on stdout (the driver starts the producers only then); they read until {@code RECORDS}
 * arrived between them. Every fetch they make asks for what was just committed: the reads an agent's cache is for.
 * Several consumers, and no client-side CRC check (the agents check every batch they read from the object store),
 * so that the reader keeps up with the producers on a small machine; one that falls behind by more than the agents'
 * caches hold is no longer reading at the tail. For each record the time from its create timestamp (set by the
 * producer in {@code send}) to its arrival here goes into {@code HISTOGRAM_FILE}.
 *
 * <p>Usage: {@code TailConsumer BOOTSTRAP TOPIC RECORDS IDLE_TIMEOUT_MS HISTOGRAM_FILE [THREADS]}. Prints
 * {@code tail-consumer records=N bytes=B elapsed.ms=T first.epoch.ms=F last.epoch.ms=L}; exits 2 when no record came
 * for IDLE_TIMEOUT_MS before all had arrived.
 */
public final class TailConsumer {

    static final String SUMMARY_PREFIX = "tail-consumer";
    static final String READY_LINE = "tail-consumer ready";
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private TailConsumer() {}

    /** Shared by the consumers: how much arrived, when the first and last records came. */
    private static final class Progress {
        final long expected;
        final long idleTimeoutNs;
        final AtomicLong records = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong firstEpochMs = new AtomicLong();
        final AtomicLong lastEpochMs = new AtomicLong();
        final AtomicLong lastProgressNs = new AtomicLong(System.nanoTime());

        Progress(long expected, long idleTimeoutNs) {
            this.expected = expected;
            this.idleTimeoutNs = idleTimeoutNs;
        }

        boolean done() {
            return records.get() >= expected || System.nanoTime() - lastProgressNs.get() >= idleTimeoutNs;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5 && args.length != 6) {
            System.err.println("Usage: TailConsumer BOOTSTRAP TOPIC RECORDS IDLE_TIMEOUT_MS HISTOGRAM_FILE [THREADS]");
            System.exit(1);
        }
        String topic = args[1];
        Progress progress = new Progress(
                Long.parseLong(args[2]),
                Duration.ofMillis(Long.parseLong(args[3])).toNanos());
        Path histogramFile = Path.of(args[4]);
        int threads = args.length == 6 ? Integer.parseInt(args[5]) : 1;
        List<TopicPartition> partitions;
        try (KafkaConsumer<byte[], byte[]> lookup = new KafkaConsumer<>(config(args[0], "tail-consumer-lookup"))) {
            partitions = partitions(lookup, topic);
        }
        CountDownLatch ready = new CountDownLatch(threads);
        List<LatencyHistogram> histograms = new ArrayList<>();
        List<Thread> consumers = new ArrayList<>();
        for (int t = 0; t < Math.min(threads, partitions.size()); t++) {
            List<TopicPartition> share = new ArrayList<>();
            for (int i = t; i < partitions.size(); i += threads) {
                share.add(partitions.get(i));
            }
            LatencyHistogram histogram = new LatencyHistogram();
            histograms.add(histogram);
            Properties config = config(args[0], "tail-consumer-" + t);
            Thread consumer = new Thread(() -> consume(config, share, histogram, progress, ready), "tail-" + t);
            consumer.start();
            consumers.add(consumer);
        }
        for (int t = consumers.size(); t < threads; t++) {
            ready.countDown();
        }
        ready.await();
        progress.lastProgressNs.set(System.nanoTime());
        System.out.println(READY_LINE);
        System.out.flush();
        for (Thread consumer : consumers) {
            consumer.join();
        }
        LatencyHistogram latency = new LatencyHistogram();
        histograms.forEach(latency::add);
        latency.write(histogramFile);
        long first = progress.firstEpochMs.get();
        long last = progress.lastEpochMs.get();
        System.out.printf(
                "%s records=%d bytes=%d elapsed.ms=%d first.epoch.ms=%d last.epoch.ms=%d partitions=%d "
                        + "threads=%d%n",
                SUMMARY_PREFIX,
                progress.records.get(),
                progress.bytes.get(),
                Math.max(1, last - first),
                first,
                last,
                partitions.size(),
                consumers.size());
        if (progress.records.get() < progress.expected) {
            System.out.printf(
                    "WARNING: read %d of %d records: none for %d ms%n",
                    progress.records.get(),
                    progress.expected,
                    Duration.ofNanos(progress.idleTimeoutNs).toMillis());
            System.exit(2);
        }
    }

    private static void consume(
            Properties config,
            List<TopicPartition> partitions,
            LatencyHistogram latency,
            Progress progress,
            CountDownLatch ready) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            partitions.forEach(consumer::position);
            ready.countDown();
            while (!progress.done()) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(POLL_TIMEOUT);
                if (batch.isEmpty()) {
                    continue;
                }
                long now = System.currentTimeMillis();
                long bytes = 0;
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    bytes += record.value() == null ? 0 : record.value().length;
                    latency.record(now - record.timestamp());
                }
                progress.firstEpochMs.compareAndSet(0, now);
                progress.lastEpochMs.accumulateAndGet(now, Math::max);
                progress.records.addAndGet(batch.count());
                progress.bytes.addAndGet(bytes);
                progress.lastProgressNs.set(System.nanoTime());
            }
        }
    }

    private static Properties config(String bootstrapServers, String clientId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.CHECK_CRCS_CONFIG, "false");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        return props;
    }

    static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " has no partitions in the cluster's metadata");
        }
        return infos.stream()
                .map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
    }
}
