package io.floe.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** message.timestamp.type=LogAppendTime: the agent stamps batches, producers and consumers see its time. */
@Timeout(120)
class LogAppendTimeTest {

    @TempDir
    Path dir;

    @Test
    void theAgentStampsBatchesAndAnswersTheStampToTheProducer() throws Exception {
        try (AgentFixture floe = AgentFixture.withServer(dir)) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic("stamped", 1, (short) 1)
                                .configs(Map.of("message.timestamp.type", "LogAppendTime"))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            long createTime = 1_000_000L;
            long before = System.currentTimeMillis();
            List<RecordMetadata> acks = new ArrayList<>();
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                for (int i = 0; i < 3; i++) {
                    acks.add(producer.send(new ProducerRecord<>("stamped", 0, createTime, "k", "v" + i))
                            .get(30, TimeUnit.SECONDS));
                }
            }
            long after = System.currentTimeMillis();
            assertThat(acks).allSatisfy(ack -> assertThat(ack.timestamp()).isBetween(before, after));

            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            Properties consumerProps = new Properties();
            consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, floe.bootstrap());
            consumerProps.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            consumerProps.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
                consumer.assign(List.of(new TopicPartition("stamped", 0)));
                consumer.seekToBeginning(List.of(new TopicPartition("stamped", 0)));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (records.size() < 3 && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                }
            }
            assertThat(records).hasSize(3).allSatisfy(record -> {
                assertThat(record.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
                assertThat(record.timestamp()).isBetween(before, after);
            });
            for (int i = 0; i < 3; i++) {
                assertThat(records.get(i).timestamp()).isEqualTo(acks.get(i).timestamp());
            }
        }
    }
}
