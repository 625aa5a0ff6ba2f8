package io.floe.cli.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * An idempotent producer (acks=all, unbounded retries) on its own thread, sending {@code count} keyed
 * records at a steady {@code perSecond}, so that the run lasts long enough for something to happen in
 * the middle of it. Every value is unique ({@code p<id>-<sequence>}, the sequence zero-padded) and
 * every acknowledgement is recorded with the partition and offset the agent answered; a send that
 * fails for good is recorded too. Public for the fault tests of package {@code e2e.faults}.
 */
public final class PacedProducer {

    /** An acknowledged record: where the agent said it stored it, and when (this JVM's nanoTime). */
    public record Ack(String value, int partition, long offset, long atNanos) {}

    private static final int KEYS = 64;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final int id;
    private final String bootstrap;
    private final String topic;
    private final int count;
    private final int perSecond;
    private final Queue<Ack> acks = new ConcurrentLinkedQueue<>();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private final Queue<String> failedValues = new ConcurrentLinkedQueue<>();
    private final AtomicInteger acked = new AtomicInteger();
    private final Thread thread;

    public PacedProducer(int id, String bootstrap, String topic, int count, int perSecond) {
        this.id = id;
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.count = count;
        this.perSecond = perSecond;
        this.thread = new Thread(this::run, "paced-producer-" + id);
        thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Waits until every send has its outcome and the producer is closed; false if {@code timeout} passed. */
    public boolean awaitDone(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        return !thread.isAlive();
    }

    public int ackedCount() {
        return acked.get();
    }

    public List<Ack> acks() {
        return List.copyOf(acks);
    }

    public List<String> failures() {
        return List.copyOf(failures);
    }

    /** The values whose send failed for good (each also in {@link #failures()}, with its error). */
    public List<String> failedValues() {
        return List.copyOf(failedValues);
    }

    static String value(int producerId, int sequence) {
        return String.format("p%d-%06d", producerId, sequence);
    }

    static int producerOf(String value) {
        return Integer.parseInt(value.substring(1, value.indexOf('-')));
    }

    static int sequenceOf(String value) {
        return Integer.parseInt(value.substring(value.indexOf('-') + 1));
    }

    private void run() {
        // Generous timeouts: an agent's partitions stay unreachable until the survivors stop listing it.
        try (KafkaProducer<byte[], byte[]> producer = Records.producer(
                bootstrap,
                Map.of(
                        ProducerConfig.CLIENT_ID_CONFIG, "paced-producer-" + id,
                        ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE,
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000,
                        ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000))) {
            long start = System.nanoTime();
            long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
            for (int sequence = 0; sequence < count; sequence++) {
                // Pacing, not synchronization: wait for this record's slot in the schedule.
                LockSupport.parkNanos(start + sequence * interval - System.nanoTime());
                send(producer, sequence);
            }
            producer.flush();
            producer.close(CLOSE_TIMEOUT);
        } catch (RuntimeException e) {
            failures.add("producer " + id + " stopped: " + e);
        }
    }

    private void send(KafkaProducer<byte[], byte[]> producer, int sequence) {
        String value = value(id, sequence);
        ProducerRecord<byte[], byte[]> record =
                new ProducerRecord<>(topic, Records.bytes("key-" + sequence % KEYS), Records.bytes(value));
        producer.send(record, (metadata, error) -> {
            if (error == null) {
                acks.add(new Ack(value, metadata.partition(), metadata.offset(), System.nanoTime()));
                acked.incrementAndGet();
            } else {
                failures.add(value + ": " + error);
                failedValues.add(value);
            }
        });
    }
}
