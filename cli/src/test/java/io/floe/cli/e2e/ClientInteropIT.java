package io.floe.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.floe.cli.e2e.ClientScript.Run;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kafka clients that are not kafka-clients against a whole agent over loopback: librdkafka (through
 * confluent-kafka-python) and KafkaJS, each driven by a script in {@code src/test/resources/interop}
 * that prints what it was acknowledged and what it read; this class judges it and reads the group's
 * offsets back with kafka-clients' Admin. {@link ClientScript} says how the clients are found.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClientInteropIT {

    private static final int PARTITIONS = 3;
    private static final int RECORDS = 2_000;
    private static final int KEYS = 50;
    /** The scripts' own deadline for their waits; the process is killed a minute later. */
    private static final int SCRIPT_DEADLINE_S = 90;

    private static final Duration PROCESS_TIMEOUT = Duration.ofSeconds(SCRIPT_DEADLINE_S + 60);

    @TempDir
    Path dataDir;

    /**
     * Admin creates the topic; an idempotent producer sends keyed records; a consumer group reads them,
     * committing as it goes. Every record is acknowledged at dense offsets in send order per partition,
     * read exactly once at the offset it was acknowledged at, and the group's committed offsets are the
     * partitions' end offsets.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ClientScript.class)
    void idempotentKeyedRecordsAreReadOnceInOrderByACommittingGroup(ClientScript client) throws Exception {
        client.requireInstalled();
        try (InProcessFloe floe = InProcessFloe.start(dataDir)) {
            String topic = "basic-" + client;
            String group = "basic-group-" + client;
            Run run = client.run(
                    client + "_basic",
                    PROCESS_TIMEOUT,
                    floe.bootstrap(),
                    topic,
                    PARTITIONS,
                    RECORDS,
                    group,
                    SCRIPT_DEADLINE_S);
            JsonNode summary = run.summary();
            assertThat(summary.get("errors"))
                    .as("errors the client met; %s", run)
                    .isEmpty();

            Map<Integer, List<At>> acked = byPartition(summary.get("acked"));
            assertThat(acked.keySet()).as("partitions written; %s", run).isSubsetOf(partitions());
            acked.forEach((partition, log) -> {
                assertThat(log)
                        .extracting(At::offset)
                        .as("acknowledged offsets of partition %s are dense from 0; %s", partition, run)
                        .containsExactlyElementsOf(dense(log.size()));
                assertThat(log)
                        .extracting(At::sequence)
                        .as("partition %s keeps send order; %s", partition, run)
                        .isSorted()
                        .doesNotHaveDuplicates();
            });
            assertThat(acked.values().stream().flatMap(List::stream).map(At::sequence))
                    .as("every record acknowledged once; %s", run)
                    .containsExactlyInAnyOrderElementsOf(
                            IntStream.range(0, RECORDS).boxed().toList());
            assertThat(partitionOfKey(acked).values())
                    .as("each key on one partition; %s", run)
                    .allSatisfy(keyPartitions -> assertThat(keyPartitions).hasSize(1));

            Map<Integer, List<At>> consumed = byPartition(summary.get("consumed"));
            assertThat(consumed)
                    .as("the group read every record once, at its acknowledged offset; %s", run)
                    .isEqualTo(acked);

            Map<Integer, Long> ends = new TreeMap<>();
            acked.forEach((partition, log) -> ends.put(partition, (long) log.size()));
            try (Admin admin = Records.admin(floe.bootstrap())) {
                assertThat(endOffsets(admin, topic)).as("end offsets").isEqualTo(withZeros(ends));
                assertThat(groupOffsets(admin, group, topic))
                        .as("the group's committed offsets, read with kafka-clients' Admin; %s", run)
                        .isEqualTo(ends);
            }
            assertThat(longs(summary.get("committed")))
                    .as("the group's committed offsets as the client read them; %s", run)
                    .isEqualTo(withZeros(ends));
        }
    }

    /** A record as a script reported it: its offset and the sequence number in its value. */
    record At(long offset, int sequence) {}

    /** {@code {"0": [[offset, sequence], ...], ...}} by partition. */
    static Map<Integer, List<At>> byPartition(JsonNode node) {
        Map<Integer, List<At>> result = new TreeMap<>();
        node.properties().forEach(field -> {
            List<At> log = new ArrayList<>();
            field.getValue()
                    .forEach(pair ->
                            log.add(new At(pair.get(0).asLong(), pair.get(1).asInt())));
            result.put(Integer.valueOf(field.getKey()), log);
        });
        return result;
    }

    /** {@code {"0": 12, ...}} by partition. */
    static Map<Integer, Long> longs(JsonNode node) {
        Map<Integer, Long> result = new TreeMap<>();
        node.properties()
                .forEach(field -> result.put(
                        Integer.valueOf(field.getKey()), field.getValue().asLong()));
        return result;
    }

    /** Key {@code key-(sequence % KEYS)} → the partitions its records were acknowledged on. */
    private static Map<Integer, List<Integer>> partitionOfKey(Map<Integer, List<At>> acked) {
        Map<Integer, List<Integer>> result = new HashMap<>();
        acked.forEach((partition, log) -> log.stream()
                .map(at -> at.sequence() % KEYS)
                .distinct()
                .forEach(key ->
                        result.computeIfAbsent(key, k -> new ArrayList<>()).add(partition)));
        return result;
    }

    private static List<Long> dense(int count) {
        return LongStream.range(0, count).boxed().toList();
    }

    private static List<Integer> partitions() {
        return IntStream.range(0, PARTITIONS).boxed().toList();
    }

    /** {@code offsets} with 0 for the partitions it lacks. */
    private static Map<Integer, Long> withZeros(Map<Integer, Long> offsets) {
        Map<Integer, Long> result = new TreeMap<>();
        partitions().forEach(partition -> result.put(partition, offsets.getOrDefault(partition, 0L)));
        return result;
    }

    static Map<Integer, Long> endOffsets(Admin admin, String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = partitions().stream()
                .collect(Collectors.toMap(partition -> new TopicPartition(topic, partition), p -> OffsetSpec.latest()));
        return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet().stream()
                .collect(Collectors.toMap(
                        entry -> entry.getKey().partition(),
                        entry -> entry.getValue().offset(),
                        (a, b) -> a,
                        TreeMap::new));
    }

    /** The group's committed offsets on {@code topic} by partition (partitions without one left out). */
    static Map<Integer, Long> groupOffsets(Admin admin, String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
        return committed.entrySet().stream()
                .filter(entry -> entry.getKey().topic().equals(topic) && entry.getValue() != null)
                .collect(Collectors.toMap(
                        entry -> entry.getKey().partition(),
                        entry -> entry.getValue().offset(),
                        (a, b) -> a,
                        TreeMap::new));
    }
}
