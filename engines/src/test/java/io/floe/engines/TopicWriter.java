package io.floe.engines;

import io.floe.engines.Workload.Change;
import io.floe.engines.Workload.Produced;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces a workload's records to its topic with a default (idempotent) producer, and remembers
 * where the log put each one. Thread-safe: a crash step sends from another thread.
 */
final class TopicWriter implements AutoCloseable {

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    /** Every record the log took, in the order their sends completed. */
    private final List<Produced> produced = Collections.synchronizedList(new ArrayList<>());

    TopicWriter(String bootstrap, String topic) {
        this.topic = topic;
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        // Back at once when the agent is: a crash step starts it again within seconds.
        properties.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        properties.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "200");
        this.producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Sends the changes (a null value as a tombstone), flushes, and records where each landed. */
    void send(List<Change> changes) throws Exception {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        for (Change change : changes) {
            byte[] value = change.value() == null ? null : json(change.value()).getBytes(StandardCharsets.UTF_8);
            sends.add(producer.send(new ProducerRecord<>(topic, change.key().getBytes(StandardCharsets.UTF_8), value)));
        }
        producer.flush();
        for (int i = 0; i < sends.size(); i++) {
            RecordMetadata sent = sends.get(i).get(120, TimeUnit.SECONDS);
            produced.add(new Produced(sent.partition(), sent.offset(), Instant.ofEpochMilli(sent.timestamp()),
                    changes.get(i)));
        }
    }

    /** The records the log took so far. */
    List<Produced> produced() {
        synchronized (produced) {
            return new ArrayList<>(produced);
        }
    }

    /** Per partition, the offset after the last record the log took. */
    Map<Integer, Long> ends() {
        Map<Integer, Long> ends = new TreeMap<>();
        produced().forEach(record -> ends.merge(record.partition(), record.offset() + 1, Math::max));
        return ends;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }

    private static String json(Map<String, Object> value) {
        return value.entrySet().stream()
                .map(field -> "\"" + field.getKey() + "\": " + (field.getValue() instanceof String
                        ? "\"" + field.getValue() + "\"" : field.getValue()))
                .collect(Collectors.joining(", ", "{", "}"));
    }
}
