package io.floe.cli.e2e.soak;

import io.floe.cli.e2e.faults.Await;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The soak's input: a plain idempotent producer ({@code acks=all}) sending, at a fixed rate, records
 * of seeded keys {@code key-00000 ...}, each valued with its key's next sequence number (1, 2, ...).
 * It never gives a record up (no delivery timeout to speak of), so a fault costs retries, not input;
 * any send that fails anyway is recorded, and the check reads the input topic itself.
 */
final class KeyedInput implements AutoCloseable {

    private final String topic;
    private final int keys;
    private final int recordsPerSecond;
    private final long seed;
    private final KafkaProducer<String, String> producer;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean stopping;

    KeyedInput(String bootstrap, String topic, int keys, int recordsPerSecond, long seed) {
        this.topic = topic;
        this.keys = keys;
        this.recordsPerSecond = recordsPerSecond;
        this.seed = seed;
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Duration.ofMinutes(10).toMillis());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        this.producer = new KafkaProducer<>(props);
        this.thread = new Thread(this::run, "soak-input");
        thread.setDaemon(true);
    }

    static String key(int index) {
        return String.format(Locale.ROOT, "key-%05d", index);
    }

    void start() {
        thread.start();
    }

    boolean started() {
        return thread.isAlive() || sent.get() > 0;
    }

    private void run() {
        Random random = new Random(seed);
        long[] sequences = new long[keys];
        long interval = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
        long start = System.nanoTime();
        for (long n = 0; !stopping; n++) {
            LockSupport.parkNanos(start + n * interval - System.nanoTime()); // the rate, not synchronization
            int index = random.nextInt(keys);
            long sequence = ++sequences[index];
            String key = key(index);
            producer.send(new ProducerRecord<>(topic, key, Long.toString(sequence)), (metadata, error) -> {
                if (error == null) {
                    acked.incrementAndGet();
                } else {
                    failures.add(key + "#" + sequence + ": " + error);
                }
            });
            sent.incrementAndGet();
        }
    }

    /** Stops sending and waits until every record sent is acknowledged or failed; returns whether it was. */
    boolean stop(Duration timeout) throws InterruptedException {
        stopping = true;
        thread.join(timeout.toMillis());
        // Not flush(): with no delivery timeout it would wait for ever on a cluster that does not answer.
        return Await.within(timeout, () -> acked.get() + failures.size() == sent.get());
    }

    long sent() {
        return sent.get();
    }

    long acked() {
        return acked.get();
    }

    Queue<String> failures() {
        return failures;
    }

    @Override
    public void close() {
        stopping = true;
        producer.close(Duration.ofSeconds(10));
    }
}
