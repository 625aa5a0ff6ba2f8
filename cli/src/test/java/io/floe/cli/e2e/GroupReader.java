package io.floe.cli.e2e;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One member of a consumer group (classic protocol) on its own thread: it polls, records every
 * delivery, and after each poll commits with commitSync what that poll returned, recording each
 * attempt and whether the coordinator acknowledged it. Deliveries are tagged with the member's
 * session, which starts at each assignment: within a session a partition's offsets only grow, and
 * a session starts at the group's committed offset, so what a rebalance may deliver again is what
 * was consumed after the last acknowledged commit. Commit refusals around a rebalance are the
 * documented ones an application handles (CommitFailedException, RebalanceInProgressException); a
 * commit that times out is tried again with the next; anything else is recorded as unexpected.
 */
public final class GroupReader {

    public record Delivery(int reader, int session, int partition, long offset, String value, long atNanos) {}

    public record CommitAttempt(int reader, int partition, long offset, boolean acknowledged, long atNanos) {}

    public record SessionStart(int reader, int session, long atNanos) {}

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final int id;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final Queue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
    private final Queue<CommitAttempt> commits = new ConcurrentLinkedQueue<>();
    private final Queue<SessionStart> sessions = new ConcurrentLinkedQueue<>();
    private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    // The poll thread's only (rebalance callbacks run inside poll):
    private int session;
    private final Map<TopicPartition, OffsetAndMetadata> unsettled = new HashMap<>(); // commits that timed out

    public GroupReader(int id, String bootstrap, String group, String topic) {
        this(id, bootstrap, group, topic, Map.of());
    }

    /** A member whose consumer takes {@code overrides} too (e.g. isolation.level=read_committed). */
    public GroupReader(int id, String bootstrap, String group, String topic, Map<String, Object> overrides) {
        this.id = id;
        this.topic = topic;
        Map<String, Object> props = properties(bootstrap, group, id);
        props.putAll(overrides);
        this.consumer = new KafkaConsumer<>(props);
        this.thread = new Thread(this::run, "group-reader-" + id);
        thread.setDaemon(true);
    }

    private static Map<String, Object> properties(String bootstrap, String group, int id) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "group-reader-" + id);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
        props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 45_000);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return props;
    }

    public void start() {
        thread.start();
    }

    /** Stops polling, leaves the group and closes the consumer; false if that took longer than {@code timeout}. */
    public boolean stop(Duration timeout) throws InterruptedException {
        stopping = true;
        thread.join(timeout.toMillis());
        return !thread.isAlive();
    }

    public List<Delivery> deliveries() {
        return List.copyOf(deliveries);
    }

    public List<CommitAttempt> commits() {
        return List.copyOf(commits);
    }

    public List<SessionStart> sessions() {
        return List.copyOf(sessions);
    }

    public List<String> unexpected() {
        return List.copyOf(unexpected);
    }

    private void run() {
        try {
            consumer.subscribe(List.of(topic), new Sessions());
            while (!stopping) {
                pollOnce();
            }
        } finally {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(CLOSE_TIMEOUT));
        }
    }

    private void pollOnce() {
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(POLL_TIMEOUT);
        } catch (KafkaException e) {
            unexpected.add("reader " + id + " poll: " + e);
            return;
        }
        // A commit that timed out is tried again with the next one: nothing else would bring it back
        // while the member keeps its partitions, so the group's offsets would stay behind.
        Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>(unsettled);
        for (ConsumerRecord<byte[], byte[]> record : records) {
            deliveries.add(new Delivery(
                    id, session, record.partition(), record.offset(), Records.text(record.value()), System.nanoTime()));
            processed.put(
                    new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
        }
        if (!processed.isEmpty()) {
            commit(processed);
        }
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        boolean acknowledged = false;
        unsettled.clear();
        try {
            consumer.commitSync(offsets, COMMIT_TIMEOUT);
            acknowledged = true;
        } catch (CommitFailedException | RebalanceInProgressException e) {
            // A rebalance or a coordinator move: whoever gets these partitions next reads them again.
        } catch (TimeoutException e) {
            unsettled.putAll(offsets);
        } catch (KafkaException e) {
            unexpected.add("reader " + id + " commitSync: " + e);
        }
        long now = System.nanoTime();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> offset : offsets.entrySet()) {
            commits.add(new CommitAttempt(
                    id, offset.getKey().partition(), offset.getValue().offset(), acknowledged, now));
        }
    }

    /**
     * Starts a new session at each assignment; runs on the poll thread. The commits that timed out
     * are dropped for partitions the member loses: their next owner reads from the committed offset.
     */
    private final class Sessions implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            unsettled.keySet().removeAll(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            unsettled.keySet().removeAll(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            session++;
            sessions.add(new SessionStart(id, session, System.nanoTime()));
        }
    }
}
