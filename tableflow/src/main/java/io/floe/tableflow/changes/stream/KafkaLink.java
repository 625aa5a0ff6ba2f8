package io.floe.tableflow.changes.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change topics' way into Kafka: the agent's own listener, through kafka-clients as any client would
 * (transactions, group offsets and topic creation then go through the same checks as everyone's). One
 * admin client for all tables, made when first needed; a transactional producer per table.
 */
final class KafkaLink implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaLink.class);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ChangeStreamConfig config;
    private Admin admin;

    KafkaLink(ChangeStreamConfig config) {
        this.config = config;
    }

    /** Whether the agent's listener is up, so the streams can start. */
    boolean ready() {
        return config.bootstrap().get().isPresent();
    }

    /** A transactional producer with {@code transactionalId}, its transactions not begun. */
    Producer<byte[], byte[]> producer(String transactionalId) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId);
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int)
                config.transactionTimeout().toMillis());
        properties.put(
                ProducerConfig.MAX_BLOCK_MS_CONFIG, config.requestTimeout().toMillis());
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int)
                config.requestTimeout().toMillis());
        properties.put(
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                (int) config.requestTimeout().toMillis() * 2);
        properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * The group metadata a transaction's offsets go with: that of a consumer of {@code group} that never
     * joins (no generation, no member), as kafka-clients hands it out.
     */
    ConsumerGroupMetadata groupMetadata(String group) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            return consumer.groupMetadata();
        }
    }

    /** A key's row as the change topic last published it: its partition and the event's {@code after}. */
    record Published(int partition, String afterJson) {}

    /**
     * The rows change topic {@code name} holds: per key, the {@code after} of its last committed event,
     * for the keys whose last event is no delete or tombstone. Read from the start with read_committed.
     */
    Map<ByteBuffer, Published> publishedRows(String name) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        properties.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)
                config.requestTimeout().toMillis());
        Map<ByteBuffer, Published> rows = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(name).stream()
                    .map(info -> new TopicPartition(name, info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(config.requestTimeout())) {
                    if (record.key() != null) {
                        published(rows, record);
                    }
                }
            }
        }
        return rows;
    }

    private static void published(Map<ByteBuffer, Published> rows, ConsumerRecord<byte[], byte[]> record) {
        ByteBuffer key = ByteBuffer.wrap(record.key());
        JsonNode after;
        try {
            after = record.value() == null
                    ? null
                    : JSON.readTree(record.value()).path("after");
        } catch (IOException e) {
            throw new KafkaException(
                    "change topic " + record.topic() + " holds a record that is no change event at "
                            + record.partition() + ":" + record.offset() + ": " + e.getMessage(),
                    e);
        }
        if (after == null || after.isNull() || after.isMissingNode()) {
            rows.remove(key);
        } else {
            rows.put(key, new Published(record.partition(), after.toString()));
        }
    }

    /** The offsets {@code group} committed, waiting out pending transactional ones (require_stable). */
    Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) {
        return await(
                "read the offsets of group " + group,
                admin().listConsumerGroupOffsets(group, new ListConsumerGroupOffsetsOptions().requireStable(true))
                        .partitionsToOffsetAndMetadata());
    }

    /**
     * The partition count of change topic {@code name} once it has at least {@code partitions}: created
     * with that many (compacted when {@code compacted}) when missing, grown when it has fewer.
     */
    int ensureTopic(String name, int partitions, boolean compacted) {
        Optional<Integer> existing = partitionCount(name);
        if (existing.isEmpty()) {
            NewTopic topic = new NewTopic(name, Optional.of(partitions), Optional.empty());
            if (compacted) {
                topic.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            }
            try {
                await(
                        "create change topic " + name,
                        admin().createTopics(List.of(topic)).all());
                LOGGER.info("created change topic={} partitions={} compacted={}", name, partitions, compacted);
                return partitions;
            } catch (KafkaException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                existing = partitionCount(name); // created meanwhile
            }
        }
        int count = existing.orElseThrow(() -> new KafkaException("change topic " + name + " vanished"));
        if (count < partitions) {
            await(
                    "grow change topic " + name + " to " + partitions + " partitions",
                    admin().createPartitions(Map.of(name, NewPartitions.increaseTo(partitions)))
                            .all());
            LOGGER.info("grew change topic={} partitions={} (was {})", name, partitions, count);
            return partitions;
        }
        return count;
    }

    private Optional<Integer> partitionCount(String name) {
        try {
            TopicDescription description = await(
                            "describe change topic " + name,
                            admin().describeTopics(List.of(name)).allTopicNames())
                    .get(name);
            return Optional.of(description.partitions().size());
        } catch (KafkaException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap(),
                    AdminClientConfig.CLIENT_ID_CONFIG,
                    "floe-tableflow-changes",
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                    (int) config.requestTimeout().toMillis(),
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                    (int) config.requestTimeout().toMillis()));
        }
        return admin;
    }

    private String bootstrap() {
        return config.bootstrap()
                .get()
                .orElseThrow(() -> new IllegalStateException("the agent's Kafka listener is not up yet"));
    }

    /** The future's value; its failure as a {@link KafkaException} whose cause is Kafka's error. */
    private <T> T await(String what, org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new KafkaException("cannot " + what + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("cannot " + what + " within " + config.requestTimeout(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while trying to " + what, e);
        }
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(config.requestTimeout());
            admin = null;
        }
    }
}
