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
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
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

    /**
     * Consume-transform-produce: a member of a group reads 30 input records; a transactional producer
     * copies them in three transactions of 10, each sending the member's positions to the transaction;
     * the first and third commit, the second aborts (the third also writes an "end" record to every
     * partition). A read_committed consumer reads exactly the committed records, a read_uncommitted one
     * all of them, at the same offsets, with one offset taken by each transaction's marker in each
     * partition it wrote; the group's offsets are the first transaction's after the abort and the
     * third's at the end, as the client and kafka-clients' Admin read them back.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(ClientScript.class)
    void aTransactionalProducerCommitsAbortsAndCommitsWithTheGroupsOffsets(ClientScript client) throws Exception {
        client.requireInstalled();
        try (InProcessFloe floe = InProcessFloe.start(dataDir)) {
            String input = "txn-input-" + client;
            String output = "txn-output-" + client;
            String group = "txn-group-" + client;
            Run run = client.run(
                    client + "_transactions",
                    PROCESS_TIMEOUT,
                    floe.bootstrap(),
                    input,
                    output,
                    PARTITIONS,
                    group,
                    "txn-" + client,
                    SCRIPT_DEADLINE_S);
            JsonNode summary = run.summary();
            assertThat(summary.get("errors"))
                    .as("errors the client met; %s", run)
                    .isEmpty();
            List<String> committed = texts(summary.at("/sent/committed"));
            List<String> aborted = texts(summary.at("/sent/aborted"));
            assertThat(committed).as("sent in committed transactions; %s", run).hasSize(20);
            assertThat(aborted).as("sent in the aborted transaction; %s", run).hasSize(10);

            Map<Integer, List<Entry>> uncommitted = entries(summary.get("readUncommitted"));
            Map<Integer, List<Entry>> readCommitted = entries(summary.get("readCommitted"));
            assertThat(values(uncommitted))
                    .as("read_uncommitted reads every record once; %s", run)
                    .containsExactlyInAnyOrderElementsOf(concat(committed, aborted));
            assertThat(values(readCommitted))
                    .as("read_committed reads exactly the committed records; %s", run)
                    .containsExactlyInAnyOrderElementsOf(committed);
            Map<Integer, Long> ends = assertOutputLayout(uncommitted, readCommitted, run);

            JsonNode expected = summary.get("expected");
            JsonNode clientRead = summary.get("committed");
            assertThat(longs(clientRead.get("txn1")))
                    .as("group offsets after the first commit; %s", run)
                    .isEqualTo(longs(expected.get("txn1")));
            assertThat(longs(clientRead.get("txn2")))
                    .as("group offsets after the abort: still the first transaction's; %s", run)
                    .isEqualTo(longs(expected.get("txn1")));
            assertThat(longs(clientRead.get("txn3")))
                    .as("group offsets after the last commit; %s", run)
                    .isEqualTo(longs(expected.get("txn3")));
            try (Admin admin = Records.admin(floe.bootstrap())) {
                assertThat(groupOffsets(admin, group, input))
                        .as("the group's committed offsets, read with kafka-clients' Admin; %s", run)
                        .isEqualTo(longs(expected.get("txn3")))
                        .isEqualTo(withoutZeros(endOffsets(admin, input)));
                assertThat(endOffsets(admin, output, IsolationLevel.READ_UNCOMMITTED))
                        .as("end offsets of the output: records, end records and markers; %s", run)
                        .isEqualTo(ends);
                assertThat(endOffsets(admin, output, IsolationLevel.READ_COMMITTED))
                        .as("last stable offsets of the output, no transaction open; %s", run)
                        .isEqualTo(ends);
            }
        }
    }

    /**
     * Per output partition: send order kept, the offsets Kafka would give (a marker after each
     * transaction), read_committed reading the committed records at the same offsets. Answers the end
     * offsets the partitions must have.
     */
    private static Map<Integer, Long> assertOutputLayout(
            Map<Integer, List<Entry>> uncommitted, Map<Integer, List<Entry>> readCommitted, Run run) {
        Map<Integer, Long> ends = new TreeMap<>();
        uncommitted.forEach((partition, log) -> {
            assertThat(log)
                    .extracting(Entry::index)
                    .as("partition %s keeps send order; %s", partition, run)
                    .isSorted();
            assertThat(log)
                    .extracting(Entry::offset)
                    .as("offsets of partition %s, a marker after each transaction; %s", partition, run)
                    .containsExactlyElementsOf(offsetsWithMarkers(log));
            assertThat(readCommitted.getOrDefault(partition, List.of()))
                    .as("read_committed in partition %s: the committed records at the same offsets; %s", partition, run)
                    .containsExactlyElementsOf(log.stream()
                            .filter(entry -> entry.value().startsWith("committed-"))
                            .toList());
        });
        partitions()
                .forEach(partition -> ends.put(partition, endOffset(uncommitted.getOrDefault(partition, List.of()))));
        return ends;
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

    /**
     * A record of the transactional test as a script reported it; its value is {@code committed-N} or
     * {@code aborted-N}, N its place in send order, and transaction {@code N / 10 + 1} wrote it.
     */
    record Entry(long offset, String value) {
        int index() {
            return Integer.parseInt(value.substring(value.indexOf('-') + 1));
        }

        int transaction() {
            return index() / 10 + 1;
        }
    }

    /** {@code {"0": [[offset, value], ...], ...}} by partition. */
    static Map<Integer, List<Entry>> entries(JsonNode node) {
        Map<Integer, List<Entry>> result = new TreeMap<>();
        node.properties().forEach(field -> {
            List<Entry> log = new ArrayList<>();
            field.getValue()
                    .forEach(pair ->
                            log.add(new Entry(pair.get(0).asLong(), pair.get(1).asText())));
            result.put(Integer.valueOf(field.getKey()), log);
        });
        return result;
    }

    /**
     * The offsets Kafka gives {@code log} (a partition as read_uncommitted reads it, without its "end"
     * record): from 0, each transaction's records in a row, then one offset for its marker; the last
     * transaction's records end with the "end" record.
     */
    private static List<Long> offsetsWithMarkers(List<Entry> log) {
        List<Long> offsets = new ArrayList<>();
        long next = 0;
        for (int i = 0; i < log.size(); i++) {
            offsets.add(next++);
            boolean lastOfTransaction = i == log.size() - 1
                    || log.get(i + 1).transaction() != log.get(i).transaction();
            if (lastOfTransaction && log.get(i).transaction() != 3) {
                next++; // the marker
            }
        }
        return offsets;
    }

    /** The end offset of a partition that {@code log} (without its "end" record) was read from. */
    private static long endOffset(List<Entry> log) {
        long transactions = log.stream()
                .mapToInt(Entry::transaction)
                .filter(t -> t != 3)
                .distinct()
                .count();
        return log.size() + transactions + 2; // the "end" record and the third transaction's marker
    }

    private static List<String> values(Map<Integer, List<Entry>> log) {
        return log.values().stream().flatMap(List::stream).map(Entry::value).toList();
    }

    private static List<String> texts(JsonNode array) {
        List<String> result = new ArrayList<>();
        array.forEach(node -> result.add(node.asText()));
        return result;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> result = new ArrayList<>(a);
        result.addAll(b);
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

    private static Map<Integer, Long> withoutZeros(Map<Integer, Long> offsets) {
        Map<Integer, Long> result = new TreeMap<>(offsets);
        result.values().removeIf(offset -> offset == 0);
        return result;
    }

    static Map<Integer, Long> endOffsets(Admin admin, String topic) throws Exception {
        return endOffsets(admin, topic, IsolationLevel.READ_UNCOMMITTED);
    }

    /** ListOffsets(latest) of every partition: high watermarks, or last stable offsets for read_committed. */
    static Map<Integer, Long> endOffsets(Admin admin, String topic, IsolationLevel isolation) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = partitions().stream()
                .collect(Collectors.toMap(partition -> new TopicPartition(topic, partition), p -> OffsetSpec.latest()));
        return admin
                .listOffsets(latest, new ListOffsetsOptions(isolation))
                .all()
                .get(30, TimeUnit.SECONDS)
                .entrySet()
                .stream()
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
