package io.floe.tableflow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reading a change topic back as a test checks it: its committed records per partition, each change
 * event rendered as {@link ProducedLog} renders the changes it expects, the rows a replay from the start
 * rebuilds, and the stream's progress (its group's committed offsets on the source topic).
 */
final class ChangeTopicReads {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private ChangeTopicReads() {}

    /** The consumer group holding the progress of {@code topic}'s change topic. */
    static String group(String topic) {
        return "floe-tableflow-changes-" + topic;
    }

    /** Per partition of the change topic, its committed records in order, tombstones included. */
    static Map<Integer, List<ConsumerRecord<byte[], byte[]>>> read(String bootstrap, String topic) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> records = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            partitions.forEach(partition -> records.put(partition.partition(), new ArrayList<>()));
            Instant deadline = Instant.now().plus(READ_TIMEOUT);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                assertThat(Instant.now()).as("read the change topic to its end").isBefore(deadline);
                consumer.poll(Duration.ofMillis(200))
                        .forEach(record -> records.get(record.partition()).add(record));
            }
        }
        return records;
    }

    /** The change events of one partition rendered as {@link ProducedLog} renders changes; tombstones left out. */
    static List<String> events(List<ConsumerRecord<byte[], byte[]>> records) {
        List<String> events = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (record.value() == null) {
                continue;
            }
            JsonNode event = json(record.value());
            JsonNode source = event.get("source");
            String key = record.key() == null ? "null" : new String(record.key(), StandardCharsets.UTF_8);
            events.add(event.get("op").asText() + " " + key + " "
                    + source.get("partition").asLong() + ":"
                    + source.get("offset").asLong() + " before=" + row(event.get("before")) + " after="
                    + row(event.get("after")) + " commit="
                    + source.get("snapshot_id").asText());
        }
        return events;
    }

    /** The expected changes (rendered "op key partition:offset ...") of one source partition, in order. */
    static List<String> inPartition(List<String> expected, int partition) {
        return expected.stream()
                .filter(line -> line.split(" ")[2].startsWith(partition + ":"))
                .toList();
    }

    /** "op snapshot" of a change event ("r true" for a snapshot's read); "tombstone" for a tombstone. */
    static String op(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return "tombstone";
        }
        JsonNode event = json(record.value());
        return event.get("op").asText() + " "
                + event.get("source").get("snapshot").asText();
    }

    /** Key → the row its last event left (r, c, u: after; d and a tombstone: none), over every partition. */
    static Map<String, String> rebuilt(Map<Integer, List<ConsumerRecord<byte[], byte[]>>> changes) {
        Map<String, String> rows = new TreeMap<>();
        for (List<ConsumerRecord<byte[], byte[]>> partition : changes.values()) {
            for (ConsumerRecord<byte[], byte[]> record : partition) {
                String key = new String(record.key(), StandardCharsets.UTF_8);
                JsonNode after =
                        record.value() == null ? null : json(record.value()).get("after");
                if (after == null || after.isNull()) {
                    rows.remove(key);
                } else {
                    assertThat(after.get("kafka_key").asText())
                            .as("the row's key column, base64")
                            .isEqualTo(Base64.getEncoder().encodeToString(record.key()));
                    rows.put(key, row(after) + " id=" + after.get("id").asLong());
                }
            }
        }
        return rows;
    }

    /** Key → row of an upsert table as Iceberg reads it, rendered as {@link #rebuilt} renders rows. */
    static Map<String, String> rows(Table table) {
        Map<String, String> rows = new TreeMap<>();
        for (Record row : TableflowHarness.rows(table)) {
            String key = StandardCharsets.UTF_8
                    .decode(((ByteBuffer) row.getField("kafka_key")).duplicate())
                    .toString();
            String previous = rows.put(
                    key,
                    row.getField("kafka_partition") + ":" + row.getField("kafka_offset") + "/" + row.getField("balance")
                            + " id=" + row.getField("id"));
            assertThat(previous).as("one row for key %s", key).isNull();
        }
        return rows;
    }

    /**
     * The stream's progress: its group's committed offsets on the source topic; empty when there are none,
     * or while an initial snapshot is being published (its offsets say how far it has read, its metadata
     * {@code reading}).
     */
    static Map<Integer, Long> progress(Admin admin, String topic) throws Exception {
        Map<Integer, Long> progress = new TreeMap<>();
        boolean reading = false;
        for (var entry : admin.listConsumerGroupOffsets(
                        group(topic), new ListConsumerGroupOffsetsOptions().requireStable(true))
                .partitionsToOffsetAndMetadata()
                .get()
                .entrySet()) {
            if (entry.getValue() != null && entry.getKey().topic().equals(topic)) {
                progress.put(entry.getKey().partition(), entry.getValue().offset());
                reading |= entry.getValue().metadata().contains(" reading");
            }
        }
        return reading ? new TreeMap<>() : progress;
    }

    private static String row(JsonNode row) {
        return row.isNull()
                ? "-"
                : row.get("kafka_partition").asLong() + ":"
                        + row.get("kafka_offset").asLong() + "/"
                        + row.get("balance").asText(); // null: a tombstone's row in an append table
    }

    private static JsonNode json(byte[] value) {
        try {
            return JSON.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
