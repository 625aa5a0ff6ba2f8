package io.floe.kafka.group;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A real KafkaConsumer with {@code group.protocol=consumer} (KIP-848), polling on its own thread and
 * committing synchronously after every poll and before giving partitions up, so a clean handover
 * neither loses nor repeats a record. The session timeout and heartbeat interval are the
 * coordinator's, not the client's. Tests read what it received and owns from other threads, and,
 * once it is closed, each partition's {@link Ownership} as its rebalance listener saw it.
 */
final class ProtocolConsumer implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final String name;
    private final List<ConsumerRecord<String, String>> received = new CopyOnWriteArrayList<>();
    private final AtomicReference<Set<TopicPartition>> assignment = new AtomicReference<>(Set.of());
    /** When each partition it owns was given; touched only by the polling thread (callbacks run there). */
    private final Map<TopicPartition, Long> ownedSince = new HashMap<>();

    private final List<Ownership> ownerships = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile CloseOptions.GroupMembershipOperation onStop;

    ProtocolConsumer(String name, String bootstrap, String groupId, String topic, Map<String, Object> overrides) {
        this.name = name;
        Map<String, Object> config = new HashMap<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                groupId,
                ConsumerConfig.GROUP_PROTOCOL_CONFIG,
                "consumer",
                ConsumerConfig.CLIENT_ID_CONFIG,
                name,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                15_000,
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                20_000));
        config.putAll(overrides);
        this.consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        Thread thread = new Thread(() -> run(topic), "consumer-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run(String topic) {
        try {
            consumer.subscribe(List.of(topic), new CommittingListener());
            while (onStop == null) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                records.forEach(received::add);
                if (!records.isEmpty()) {
                    consumer.commitSync();
                }
            }
        } catch (WakeupException stopping) {
            // finish() woke the poll up
        } catch (RuntimeException e) {
            stopped.completeExceptionally(e);
        } finally {
            try {
                CloseOptions.GroupMembershipOperation operation =
                        onStop == null ? CloseOptions.GroupMembershipOperation.DEFAULT : onStop;
                consumer.close(CloseOptions.groupMembershipOperation(operation).withTimeout(Duration.ofSeconds(10)));
            } finally {
                assignment.set(Set.of()); // a closed consumer reads nothing, whatever its listener was told
                ended(Set.copyOf(ownedSince.keySet()), System.nanoTime(), Ownership.End.CLOSED);
                stopped.complete(null);
            }
        }
    }

    String name() {
        return name;
    }

    List<ConsumerRecord<String, String>> received() {
        return List.copyOf(received);
    }

    Set<TopicPartition> assignment() {
        return assignment.get();
    }

    /** Leaves the group cleanly (a heartbeat with epoch -1), committing what it consumed first. */
    void stop() {
        finish(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
    }

    /**
     * Stops heartbeating without leaving, as a crashed process would: the coordinator notices when
     * the member's session expires. (Abandoning the consumer object would not do: the consumer
     * protocol heartbeats from a background thread, not from poll.)
     */
    void crash() {
        finish(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP);
    }

    private void finish(CloseOptions.GroupMembershipOperation operation) {
        onStop = operation;
        consumer.wakeup();
        stopped.join();
    }

    /** Its ownership of each partition, complete once it is closed. */
    List<Ownership> ownerships() {
        return List.copyOf(ownerships);
    }

    private void owned(Collection<TopicPartition> partitions, long nowNanos) {
        partitions.forEach(partition -> ownedSince.putIfAbsent(partition, nowNanos));
    }

    private void ended(Collection<TopicPartition> partitions, long nowNanos, Ownership.End end) {
        for (TopicPartition partition : partitions) {
            Long since = ownedSince.remove(partition);
            if (since != null) {
                ownerships.add(new Ownership(partition, name, since, nowNanos, end));
            }
        }
    }

    /** Whether the polling thread ended with an error (rather than by being stopped). */
    boolean failed() {
        return stopped.isCompletedExceptionally();
    }

    /** Its name and assignment, and why its polling thread ended if it did, for failure messages. */
    String describe() {
        String state = name + "=" + assignment.get();
        if (stopped.isCompletedExceptionally()) {
            return state + " (polling failed: "
                    + stopped.handle((ok, e) -> String.valueOf(e)).join() + ")";
        }
        return stopped.isDone() ? state + " (closed)" : state;
    }

    @Override
    public void close() {
        if (!stopped.isDone()) {
            stop();
        }
    }

    /**
     * Commits before partitions go (so the next owner starts right after) and tracks the assignment:
     * a partition is owned from the start of onPartitionsAssigned to the end of onPartitionsRevoked
     * (or the start of onPartitionsLost).
     */
    private final class CommittingListener implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            try {
                if (!partitions.isEmpty()) {
                    consumer.commitSync();
                }
            } finally {
                update(partitions, false);
                ended(partitions, System.nanoTime(), Ownership.End.REVOKED);
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            owned(partitions, System.nanoTime());
            update(partitions, true);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            ended(partitions, System.nanoTime(), Ownership.End.LOST);
            update(partitions, false);
        }

        private void update(Collection<TopicPartition> partitions, boolean added) {
            Set<TopicPartition> next = new HashSet<>(assignment.get());
            if (added) {
                next.addAll(partitions);
            } else {
                next.removeAll(partitions);
            }
            assignment.set(Set.copyOf(next));
        }
    }

    static List<String> values(Collection<ProtocolConsumer> consumers) {
        List<String> all = new ArrayList<>();
        consumers.forEach(consumer -> consumer.received().forEach(record -> all.add(record.value())));
        return all;
    }
}
