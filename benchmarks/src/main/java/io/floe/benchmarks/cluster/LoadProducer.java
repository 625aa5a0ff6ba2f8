package io.floe.benchmarks.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Full-load producer, run as a child JVM: {@code PRODUCERS} KafkaProducers on threads of their own send
 * {@code RECORDS} records between them, unthrottled, as fast as acknowledgements come back (a producer's
 * {@code send} blocks once its buffer is full). Latency is taken per record from just before {@code send} to its
 * callback, as Kafka's ProducerPerformance does, so time blocked on a full buffer counts. Each producer keeps its
 * own histogram (its callbacks run on its one I/O thread); the merged one goes to {@code HISTOGRAM_FILE}. The clock
 * starts when every producer is constructed and has the topic's metadata, so a JVM starting slowly on a busy machine
 * does not count as time spent producing.
 *
 * <p>With {@code --rate=N} the producers together send N records a second instead (each its share, on a fixed
 * schedule), for latencies without the producers' own queueing; {@code --skip-records=N} leaves the first N records
 * (the JVM warming up) out of the histogram.
 *
 * <p>Usage: {@code LoadProducer BOOTSTRAP TOPIC RECORDS RECORD_SIZE PRODUCERS HISTOGRAM_FILE [--rate=N]
 * [--skip-records=N] [key=value ...]}, the key=value pairs being producer properties. Prints progress every 5 s and
 * last
 * {@code load-producer records=N bytes=B errors=E elapsed.ms=T start.epoch.ms=S end.epoch.ms=E}; exits 2 when a
 * record failed.
 */
public final class LoadProducer {

    static final String SUMMARY_PREFIX = "load-producer";
    private static final long PROGRESS_INTERVAL_MS = 5_000;
    private static final int PAYLOADS = 16;

    private LoadProducer() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            System.err.println("Usage: LoadProducer BOOTSTRAP TOPIC RECORDS RECORD_SIZE PRODUCERS HISTOGRAM_FILE "
                    + "[--rate=N] [--skip-records=N] [key=value ...]");
            System.exit(1);
        }
        String topic = args[1];
        long records = Long.parseLong(args[2]);
        int recordSize = Integer.parseInt(args[3]);
        int producers = Integer.parseInt(args[4]);
        Path histogramFile = Path.of(args[5]);
        long rate = 0;
        long skipRecords = 0;
        List<String> properties = new ArrayList<>();
        for (String arg : List.of(args).subList(6, args.length)) {
            if (arg.startsWith("--rate=")) {
                rate = Long.parseLong(arg.substring("--rate=".length()));
            } else if (arg.startsWith("--skip-records=")) {
                skipRecords = Long.parseLong(arg.substring("--skip-records=".length()));
            } else {
                properties.add(arg);
            }
        }
        Properties config = config(args[0], properties);
        // Each producer's share of the schedule: one record every this many nanoseconds (0: as fast as it can).
        double nanosPerRecord = rate > 0 ? 1e9 * producers / rate : 0;

        AtomicLong acked = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        AtomicLong lastAckNanos = new AtomicLong();
        List<LatencyHistogram> histograms = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(producers);
        CountDownLatch go = new CountDownLatch(1);
        AtomicLong goNanos = new AtomicLong();
        for (int p = 0; p < producers; p++) {
            long share = records / producers + (p < records % producers ? 1 : 0);
            LatencyHistogram histogram = new LatencyHistogram();
            histograms.add(histogram);
            Properties own = new Properties();
            own.putAll(config);
            own.put(
                    ProducerConfig.CLIENT_ID_CONFIG,
                    "load-producer-" + ProcessHandle.current().pid() + "-" + p);
            Sender sender = new Sender(
                    own,
                    topic,
                    share,
                    payloads(recordSize, p),
                    histogram,
                    acked,
                    errors,
                    firstError,
                    lastAckNanos,
                    ready,
                    go,
                    goNanos,
                    nanosPerRecord,
                    skipRecords / producers);
            Thread thread = new Thread(sender, "load-producer-" + p);
            thread.start();
            threads.add(thread);
        }
        ready.await();
        long startEpochMs = System.currentTimeMillis();
        long startNanos = System.nanoTime();
        System.out.println("load-producer ready: " + producers + " producers have the metadata of " + topic);
        goNanos.set(startNanos);
        go.countDown();
        long reported = startNanos;
        while (threads.stream().anyMatch(Thread::isAlive)) {
            threads.get(0).join(200);
            long now = System.nanoTime();
            if (now - reported >= PROGRESS_INTERVAL_MS * 1_000_000) {
                System.out.printf(
                        "progress acked=%d of %d errors=%d elapsed.ms=%d%n",
                        acked.get(), records, errors.get(), (now - startNanos) / 1_000_000);
                reported = now;
            }
        }
        for (Thread thread : threads) {
            thread.join();
        }
        LatencyHistogram merged = new LatencyHistogram();
        histograms.forEach(merged::add);
        merged.write(histogramFile);
        long elapsedMs = Math.max(1, (lastAckNanos.get() - startNanos) / 1_000_000);
        if (firstError.get() != null) {
            System.out.println("first error: " + firstError.get());
        }
        System.out.printf(
                "%s records=%d bytes=%d errors=%d elapsed.ms=%d start.epoch.ms=%d end.epoch.ms=%d "
                        + "p50.ms=%d p99.ms=%d%n",
                SUMMARY_PREFIX,
                acked.get(),
                acked.get() * recordSize,
                errors.get(),
                elapsedMs,
                startEpochMs,
                startEpochMs + elapsedMs,
                merged.percentileMs(0.50),
                merged.percentileMs(0.99));
        System.exit(errors.get() > 0 ? 2 : 0);
    }

    private static Properties config(String bootstrap, List<String> properties) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        for (String property : properties) {
            int eq = property.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("producer property " + property + " is not key=value");
            }
            config.put(property.substring(0, eq), property.substring(eq + 1));
        }
        return config;
    }

    /** A few random values per producer: no two records' bytes repeat in a row, and none compress. */
    private static byte[][] payloads(int recordSize, int seed) {
        Random random = new Random(seed);
        byte[][] payloads = new byte[PAYLOADS][recordSize];
        for (byte[] payload : payloads) {
            random.nextBytes(payload);
        }
        return payloads;
    }

    /** One producer sending its share of the records. */
    private record Sender(
            Properties config,
            String topic,
            long records,
            byte[][] payloads,
            LatencyHistogram histogram,
            AtomicLong acked,
            AtomicLong errors,
            AtomicReference<String> firstError,
            AtomicLong lastAckNanos,
            CountDownLatch ready,
            CountDownLatch go,
            AtomicLong goNanos,
            double nanosPerRecord,
            long skip)
            implements Runnable {

        @Override
        public void run() {
            KafkaProducer<byte[], byte[]> producer;
            try {
                producer = new KafkaProducer<>(config);
                producer.partitionsFor(topic);
            } catch (RuntimeException e) {
                firstError.compareAndSet(null, e.toString());
                errors.incrementAndGet();
                return;
            } finally {
                ready.countDown();
            }
            try (producer) {
                go.await();
                for (long i = 0; i < records; i++) {
                    if (nanosPerRecord > 0) {
                        long wait = goNanos.get() + (long) (i * nanosPerRecord) - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                    }
                    long sentNanos = System.nanoTime();
                    boolean measured = i >= skip;
                    producer.send(
                            new ProducerRecord<>(topic, payloads[(int) (i % payloads.length)]), (metadata, error) -> {
                                long now = System.nanoTime();
                                if (measured) {
                                    histogram.record((now - sentNanos) / 1_000_000);
                                }
                                lastAckNanos.accumulateAndGet(now, Math::max);
                                if (error == null) {
                                    acked.incrementAndGet();
                                } else if (errors.incrementAndGet() == 1) {
                                    firstError.set(error.toString());
                                }
                            });
                }
                producer.flush();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                firstError.compareAndSet(null, e.toString());
                errors.incrementAndGet();
            }
        }
    }
}
