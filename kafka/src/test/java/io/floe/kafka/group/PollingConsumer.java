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
 * A real KafkaConsumer in a group, polling on its own thread (consumers are single-threaded) and
 * committing synchronously after every poll and before giving partitions up, so a clean handover
 * neither loses nor repeats a record. Tests read what it received and owns from other threads.
 */
final class PollingConsumer implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final String name;
    private final List<ConsumerRecord<String, String>> received = new CopyOnWriteArrayList<>();
    private final AtomicReference<Set<TopicPartition>> assignment = new AtomicReference<>(Set.of());
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile CloseOptions.GroupMembershipOperation onStop;
    private final Thread thread;

    PollingConsumer(String name, String bootstrap, String groupId, String topic, Map<String, Object> overrides) {
        this.name = name;
        Map<String, Object> config = new HashMap<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                groupId,
                ConsumerConfig.CLIENT_ID_CONFIG,
                name,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                3_000,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                300,
                ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG,
                10_000,
                ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                15_000,
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                20_000));
        config.putAll(overrides);
        this.consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        this.thread = new Thread(() -> run(topic), "consumer-" + name);
        this.thread.setDaemon(true);
        this.thread.start();
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
            // close() woke the poll up
        } catch (RuntimeException e) {
            stopped.completeExceptionally(e);
        } finally {
            try {
                CloseOptions.GroupMembershipOperation operation =
                        onStop == null ? CloseOptions.GroupMembershipOperation.DEFAULT : onStop;
                consumer.close(CloseOptions.groupMembershipOperation(operation).withTimeout(Duration.ofSeconds(10)));
            } finally {
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

    /** Leaves the group cleanly (LeaveGroup), committing what it consumed first. */
    void stop() {
        finish(CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
    }

    /** Stops without leaving, as a crashed process would: the group notices when the session expires. */
    void crash() {
        finish(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP);
    }

    private void finish(CloseOptions.GroupMembershipOperation operation) {
        onStop = operation;
        consumer.wakeup();
        stopped.join();
    }

    @Override
    public void close() {
        if (!stopped.isDone()) {
            stop();
        }
    }

    /** Commits before partitions go (so the next owner starts right after) and tracks the assignment. */
    private final class CommittingListener implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                consumer.commitSync();
            }
            update(partitions, false);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            update(partitions, true);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            update(partitions, false);
        }

        private void update(Collection<TopicPartition> partitions, boolean added) {
            Set<TopicPartition> next = new HashSet<>();
            next.addAll(assignment.get());
            if (added) {
                next.addAll(partitions);
            } else {
                next.removeAll(partitions);
            }
            assignment.set(Set.copyOf(next));
        }
    }

    static List<String> values(Collection<PollingConsumer> consumers) {
        List<String> all = new ArrayList<>();
        consumers.forEach(consumer -> consumer.received().forEach(record -> all.add(record.value())));
        return all;
    }
}
