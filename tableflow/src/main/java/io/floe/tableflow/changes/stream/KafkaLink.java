package io.floe.tableflow.changes.stream;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
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
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change topics' way into Kafka: the agent's own listener, through kafka-clients as any client would
 * (transactions, group offsets and topic creation then go through the same checks as everyone's). One
 * admin client for all tables, made when first needed; a transactional producer per table.
 */
final class KafkaLink implements StreamLink {

    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaLink.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final ChangeStreamConfig config;
    private Admin admin;

    KafkaLink(ChangeStreamConfig config) {
        this.config = config;
    }

    @Override
    public boolean ready() {
        return config.bootstrap().get().isPresent();
    }

    @Override
    public Transactions transactions(String transactionalId) {
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
        KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
        try {
            producer.initTransactions();
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        return new ProducerTransactions(producer);
    }

    /**
     * The group metadata a transaction's offsets go with: that of a consumer of {@code group} that never
     * joins (no generation, no member), as kafka-clients hands it out.
     */
    private ConsumerGroupMetadata groupMetadata(String group) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            return consumer.groupMetadata();
        }
    }

    /** A producer's transactions; its offsets go with a consumer of the group that never joins, as the stream's. */
    private final class ProducerTransactions implements Transactions {
        private final Producer<byte[], byte[]> producer;
        private final Map<String, ConsumerGroupMetadata> groups = new HashMap<>();

        ProducerTransactions(Producer<byte[], byte[]> producer) {
            this.producer = producer;
        }

        @Override
        public void begin() {
            producer.beginTransaction();
        }

        @Override
        public void send(String topic, int partition, byte[] key, byte[] value, String progress) {
            List<Header> headers = progress == null
                    ? List.of()
                    : List.of(new RecordHeader(Progress.HEADER, progress.getBytes(StandardCharsets.UTF_8)));
            producer.send(new ProducerRecord<>(topic, partition, null, key, value, headers));
        }

        @Override
        public void commit(String group, Map<TopicPartition, OffsetAndMetadata> offsets) {
            producer.sendOffsetsToTransaction(offsets, groups.computeIfAbsent(group, KafkaLink.this::groupMetadata));
            producer.commitTransaction();
        }

        @Override
        public void abort() {
            producer.abortTransaction();
        }

        @Override
        public void close() {
            producer.close(CLOSE_TIMEOUT);
        }
    }

    @Override
    public List<PartitionEnd> ends(String name) {
        Optional<Integer> count = partitionCount(name);
        if (count.isEmpty()) {
            return List.of();
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (int partition = 0; partition < count.get(); partition++) {
            partitions.add(new TopicPartition(name, partition));
        }
        List<PartitionEnd> ends = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = committedReader("latest")) {
            consumer.assign(partitions);
            Map<TopicPartition, Long> endOffsets = consumer.endOffsets(partitions);
            Map<TopicPartition, String> last = new HashMap<>();
            for (TopicPartition partition : partitions) {
                consumer.seek(partition, Math.max(0, endOffsets.get(partition) - 2));
            }
            readTo(consumer, partitions, endOffsets, record -> {
                Header header = record.headers().lastHeader(Progress.HEADER);
                TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                if (record.offset() == endOffsets.get(partition) - 2 && header != null) {
                    last.put(partition, new String(header.value(), StandardCharsets.UTF_8));
                }
            });
            for (TopicPartition partition : partitions) {
                ends.add(new PartitionEnd(
                        partition.partition(), endOffsets.get(partition), Optional.ofNullable(last.get(partition))));
            }
        }
        return ends;
    }

    @Override
    public void scan(String name, RecordVisitor visitor) {
        try (KafkaConsumer<byte[], byte[]> consumer = committedReader("earliest")) {
            List<TopicPartition> partitions = consumer.partitionsFor(name).stream()
                    .map(info -> new TopicPartition(name, info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            readTo(
                    consumer,
                    partitions,
                    consumer.endOffsets(partitions),
                    record -> visitor.record(record.partition(), record.offset(), record.key(), record.value()));
        }
    }

    /** A read_committed consumer that joins no group. */
    private KafkaConsumer<byte[], byte[]> committedReader(String offsetReset) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, offsetReset);
        properties.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)
                config.requestTimeout().toMillis());
        return new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Polls until every partition's position reaches its end in {@code ends}; a {@link KafkaException}
     * when a poll brings nothing for a whole request timeout while some partition is short of its end.
     */
    private void readTo(
            KafkaConsumer<byte[], byte[]> consumer,
            List<TopicPartition> partitions,
            Map<TopicPartition, Long> ends,
            Consumer<ConsumerRecord<byte[], byte[]>> each) {
        while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
            Map<TopicPartition, Long> before = new HashMap<>();
            partitions.forEach(partition -> before.put(partition, consumer.position(partition)));
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(config.requestTimeout())) {
                each.accept(record);
            }
            if (partitions.stream().allMatch(partition -> consumer.position(partition) == before.get(partition))) {
                throw new KafkaException(
                        "cannot read topic " + partitions.get(0).topic() + " up to its end " + ends
                                + ": no progress in " + config.requestTimeout() + " at " + before);
            }
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) {
        return await(
                "read the offsets of group " + group,
                admin().listConsumerGroupOffsets(group, new ListConsumerGroupOffsetsOptions().requireStable(true))
                        .partitionsToOffsetAndMetadata());
    }

    @Override
    public int ensureTopic(String name, int partitions, boolean compacted) {
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
    public boolean fenced(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException) {
                return true;
            }
            for (Throwable suppressed : cause.getSuppressed()) {
                if (fenced(suppressed)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(config.requestTimeout());
            admin = null;
        }
    }
}
