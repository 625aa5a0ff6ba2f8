package io.floe.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.topic.NewTopic;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real KafkaConsumers in classic-protocol groups against a real agent over loopback. */
class GroupConsumersTest {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;

    @TempDir
    Path dir;

    private GroupServer server;
    private final List<PollingConsumer> consumers = new ArrayList<>();

    @BeforeEach
    void start() {
        server = new GroupServer(dir);
        server.agent().topics().create(new NewTopic(TOPIC, PARTITIONS, Map.of()), false);
    }

    @AfterEach
    void stop() {
        consumers.forEach(PollingConsumer::close);
        server.close();
    }

    @Test
    void threeRangeConsumersSplitTheTopicAndConsumeEveryRecordOnce() {
        threeConsumersSplitTheTopic(RangeAssignor.class.getName());
    }

    @Test
    void threeCooperativeStickyConsumersSplitTheTopicAndConsumeEveryRecordOnce() {
        threeConsumersSplitTheTopic(CooperativeStickyAssignor.class.getName());
    }

    private void threeConsumersSplitTheTopic(String assignor) {
        produce(0, 300);
        for (int i = 0; i < 3; i++) {
            join("c" + i, "split", assignor);
        }

        awaitAssignment(consumers, PARTITIONS / 3);
        awaitValues(300);

        assertThat(PollingConsumer.values(consumers)).doesNotHaveDuplicates().hasSize(300);
        assertThat(consumers)
                .allSatisfy(consumer -> assertThat(consumer.assignment()).hasSize(2));
    }

    @Test
    void partitionsOfALeavingAndOfACrashedConsumerMoveToTheOthers() {
        PollingConsumer first = join("first", "handover", RangeAssignor.class.getName());
        PollingConsumer leaving = join("leaving", "handover", RangeAssignor.class.getName());
        PollingConsumer crashing = join("crashing", "handover", RangeAssignor.class.getName());
        awaitAssignment(List.of(first, leaving, crashing), 2);

        leaving.stop();
        awaitAssignment(List.of(first, crashing), 3);

        crashing.crash();
        awaitAssignment(List.of(first), PARTITIONS);

        produce(0, 60);
        Eventually.await(
                "the survivor to read all 60 records", () -> first.received().size() == 60);
        assertThat(server.meters().counter("floe.group.rebalances").count()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void everyRecordIsConsumedExactlyOnceAcrossHandoversWithCommits() {
        produce(0, 150);
        PollingConsumer a = join("a", "exactly-once", RangeAssignor.class.getName());
        awaitValues(150);

        PollingConsumer b = join("b", "exactly-once", RangeAssignor.class.getName());
        awaitAssignment(List.of(a, b), PARTITIONS / 2);
        produce(150, 150);
        awaitValues(300);

        a.stop();
        awaitAssignment(List.of(b), PARTITIONS);
        produce(300, 100);
        awaitValues(400);

        List<String> values = PollingConsumer.values(consumers);
        assertThat(values)
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, 400).mapToObj(i -> "v" + i).toList());
    }

    @Test
    void aRestartedStaticMemberGetsItsPartitionsBackWithoutARebalance() {
        PollingConsumer other = join("other", "static", RangeAssignor.class.getName());
        PollingConsumer original = joinStatic("original", "static", "instance-a");
        awaitAssignment(List.of(other, original), PARTITIONS / 2);
        Set<TopicPartition> owned = original.assignment();
        double rebalances = server.meters().counter("floe.group.rebalances").count();

        original.crash(); // a restarting static member closes without leaving the group
        PollingConsumer restarted = joinStatic("restarted", "static", "instance-a");

        awaitAssignment(List.of(other, restarted), PARTITIONS / 2);
        assertThat(restarted.assignment()).isEqualTo(owned);
        assertThat(server.meters().counter("floe.group.rebalances").count()).isEqualTo(rebalances);
    }

    @Test
    void committedOffsetsSurviveAnAgentRestart() {
        produce(0, 100);
        PollingConsumer before = join("before", "durable", RangeAssignor.class.getName());
        awaitValues(100);
        before.stop();
        consumers.remove(before);

        server.restart();
        assertThat(server.agent().groups().committedOffsets("durable")).hasSize(PARTITIONS);
        produce(100, 50);
        PollingConsumer after = join("after", "durable", RangeAssignor.class.getName());

        Eventually.await(
                "the restarted group to read the 50 new records",
                () -> after.received().size() >= 50);
        assertThat(after.received())
                .extracting(record -> record.value())
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(100, 150).mapToObj(i -> "v" + i).toList());
    }

    private PollingConsumer join(String name, String group, String assignor) {
        PollingConsumer consumer = new PollingConsumer(
                name,
                server.bootstrap(),
                group,
                TOPIC,
                Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor));
        consumers.add(consumer);
        return consumer;
    }

    private PollingConsumer joinStatic(String name, String group, String instanceId) {
        PollingConsumer consumer = new PollingConsumer(
                name,
                server.bootstrap(),
                group,
                TOPIC,
                Map.of(
                        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                        RangeAssignor.class.getName(),
                        ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
                        instanceId));
        consumers.add(consumer);
        return consumer;
    }

    /** Waits until the consumers own every partition, disjointly, {@code each} apiece. */
    private static void awaitAssignment(List<PollingConsumer> owners, int each) {
        Eventually.await(
                owners.size() + " consumers owning " + each + " partitions each",
                () -> {
                    Set<TopicPartition> union = new HashSet<>();
                    int total = 0;
                    for (PollingConsumer owner : owners) {
                        if (owner.assignment().size() != each) {
                            return false;
                        }
                        union.addAll(owner.assignment());
                        total += owner.assignment().size();
                    }
                    return union.size() == PARTITIONS && total == PARTITIONS;
                },
                () -> owners.stream().map(o -> o.name() + "=" + o.assignment()).collect(Collectors.joining(", ")));
    }

    private void awaitValues(int count) {
        Eventually.await(
                count + " records consumed",
                () -> PollingConsumer.values(consumers).size() >= count,
                () -> PollingConsumer.values(consumers).size() + " consumed");
    }

    private void produce(int from, int count) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap(), ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i));
            }
            producer.flush();
        }
    }
}
