package io.floe.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.kafka.WireClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real KafkaConsumers with {@code group.protocol=consumer} (KIP-848) against a real agent over
 * loopback: server-side assignment, rebalances on join, leave, crash and new partitions, and offsets
 * committed under member epochs. Every consumer records when its rebalance listener was given and
 * took back each partition ({@link Ownership}); each test fails if two consumers ever owned the same
 * partition at once.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ConsumerProtocolGroupTest {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;

    @TempDir
    Path dir;

    private ConsumerProtocolServer server;
    private final List<ProtocolConsumer> consumers = new CopyOnWriteArrayList<>();
    private int correlationId;

    @BeforeEach
    void start() {
        server = new ConsumerProtocolServer(dir);
        server.createTopic(TOPIC, PARTITIONS);
    }

    @AfterEach
    void stop() {
        consumers.forEach(ProtocolConsumer::close);
        server.close();
        List<Ownership> ownerships = consumers.stream()
                .flatMap(consumer -> consumer.ownerships().stream())
                .toList();
        assertThat(Ownership.overlaps(ownerships))
                .as("partitions owned by two consumers at once")
                .isEmpty();
    }

    @Test
    void threeConsumersSplitSixPartitionsAndReadEveryRecordOnce() throws Exception {
        produce(0, 300);
        for (int i = 0; i < 3; i++) {
            join("c" + i, "split");
        }

        awaitAssignment(consumers, PARTITIONS / 3);
        awaitValues(300);

        assertThat(ProtocolConsumer.values(consumers)).doesNotHaveDuplicates().hasSize(300);
        try (Admin admin = admin()) {
            ConsumerGroupDescription described =
                    admin.describeConsumerGroups(List.of("split")).all().get().get("split");
            assertThat(described.type()).isEqualTo(GroupType.CONSUMER);
            assertThat(described.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(described.partitionAssignor()).isEqualTo("uniform");
            assertThat(described.members())
                    .hasSize(3)
                    .allSatisfy(member ->
                            assertThat(member.assignment().topicPartitions()).hasSize(2));
            Set<TopicPartition> assigned = described.members().stream()
                    .flatMap(member -> member.assignment().topicPartitions().stream())
                    .collect(Collectors.toSet());
            assertThat(assigned).hasSize(PARTITIONS);
        }
    }

    @Test
    void aJoiningMemberGetsItsShareAndALeavingMembersPartitionsMove() {
        ProtocolConsumer first = join("first", "handover");
        ProtocolConsumer leaving = join("leaving", "handover");
        awaitAssignment(List.of(first, leaving), PARTITIONS / 2);

        ProtocolConsumer third = join("third", "handover");
        awaitAssignment(List.of(first, leaving, third), PARTITIONS / 3);

        leaving.stop();
        awaitAssignment(List.of(first, third), PARTITIONS / 2);

        produce(0, 60);
        Eventually.await(
                "the two survivors to read all 60 records",
                () -> first.received().size() + third.received().size() == 60);
    }

    /**
     * A member that crashes sends nothing more. (A KafkaConsumer cannot play it: it heartbeats from a
     * background thread, and closes with a leave even when asked to remain in the group.) So the
     * crashed member here speaks the protocol over a raw socket: it joins alone, takes every
     * partition, and goes silent. The consumers that join after it get nothing it owns until its
     * session expires, then everything.
     */
    @Test
    void aCrashedMembersPartitionsMoveOnlyWhenItsSessionExpires() throws Exception {
        try (WireClient crashed = new WireClient(server.port())) {
            ConsumerGroupHeartbeatResponseData joined = heartbeat(
                    crashed,
                    new ConsumerGroupHeartbeatRequestData()
                            .setGroupId("crash")
                            .setMemberId(Uuid.randomUuid().toString())
                            .setMemberEpoch(0)
                            .setRebalanceTimeoutMs(60_000)
                            .setSubscribedTopicNames(List.of(TOPIC))
                            .setTopicPartitions(List.of()));
            assertThat(joined.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(joined.assignment().topicPartitions())
                    .singleElement()
                    .satisfies(topic -> assertThat(topic.partitions()).hasSize(PARTITIONS));
            double rebalances =
                    server.meters().counter("floe.consumer.group.rebalances").count();
            long crashedAtNanos = System.nanoTime();

            ProtocolConsumer a = join("a", "crash");
            ProtocolConsumer b = join("b", "crash");
            awaitAssignment(List.of(a, b), PARTITIONS / 2);

            // The session started a little before the join answer arrived here: allow for that.
            assertThat(Duration.ofNanos(System.nanoTime() - crashedAtNanos))
                    .isGreaterThan(ConsumerProtocolServer.SESSION_TIMEOUT.minusMillis(500));
            // two joins and the crashed member's removal
            assertThat(server.meters().counter("floe.consumer.group.rebalances").count())
                    .isGreaterThanOrEqualTo(rebalances + 3);
            ConsumerGroupHeartbeatResponseData late = heartbeat(
                    crashed,
                    new ConsumerGroupHeartbeatRequestData()
                            .setGroupId("crash")
                            .setMemberId(joined.memberId())
                            .setMemberEpoch(joined.memberEpoch()));
            assertThat(late.errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        }
    }

    /**
     * A KafkaConsumer whose metadata does not know the topic id yet when its first assignment comes
     * acknowledges the part it could resolve (nothing), then takes the whole assignment once its
     * metadata catches up. Its "I own nothing" must not pass for a revocation: had the coordinator
     * handed the second member its share then, both consumers would have owned it at once (which
     * the full build, on a loaded machine, caught). Played here over raw sockets, step by step.
     */
    @Test
    void partitionsAMemberHasNotReportedOwningYetMoveOnlyOnceItRevokedThem() {
        try (WireClient first = new WireClient(server.port());
                WireClient second = new WireClient(server.port())) {
            String firstId = Uuid.randomUuid().toString();
            ConsumerGroupHeartbeatResponseData given = heartbeat(first, joining("unresolved", firstId));
            assertThat(given.memberEpoch()).isEqualTo(1);
            Uuid topicId = given.assignment().topicPartitions().get(0).topicId();
            assertThat(partitions(given)).hasSize(PARTITIONS);

            String secondId = Uuid.randomUuid().toString();
            ConsumerGroupHeartbeatResponseData waiting = heartbeat(second, joining("unresolved", secondId));
            assertThat(waiting.memberEpoch()).isEqualTo(2);
            assertThat(partitions(waiting))
                    .as("everything is the first member's still")
                    .isEmpty();

            // The first member acknowledges the part of its assignment it could resolve: nothing.
            ConsumerGroupHeartbeatResponseData revoking = heartbeat(first, beat("unresolved", firstId, 1, topicId));
            assertThat(revoking.memberEpoch())
                    .as("it must revoke before it moves on")
                    .isEqualTo(1);
            List<Integer> kept = partitions(revoking);
            assertThat(kept).hasSize(PARTITIONS / 2);
            assertThat(partitions(heartbeat(second, beat("unresolved", secondId, 2, null))))
                    .isEmpty();

            // It took its whole first assignment after all, then revoked what it was told to.
            assertThat(heartbeat(first, beat("unresolved", firstId, 1, topicId, 0, 1, 2, 3, 4, 5))
                            .memberEpoch())
                    .isEqualTo(1);
            assertThat(partitions(heartbeat(second, beat("unresolved", secondId, 2, null))))
                    .isEmpty();
            assertThat(heartbeat(first, beat("unresolved", firstId, 1, topicId, kept.toArray(Integer[]::new)))
                            .memberEpoch())
                    .isEqualTo(2);

            List<Integer> moved = partitions(heartbeat(second, beat("unresolved", secondId, 2, null)));
            assertThat(moved).hasSize(PARTITIONS / 2).doesNotContainAnyElementsOf(kept);
        }
    }

    private static ConsumerGroupHeartbeatRequestData joining(String group, String memberId) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(60_000)
                .setSubscribedTopicNames(List.of(TOPIC))
                .setTopicPartitions(List.of());
    }

    /** A heartbeat reporting the {@code owned} partitions of {@code topicId}; none reported if topicId is null. */
    private static ConsumerGroupHeartbeatRequestData beat(
            String group, String memberId, int epoch, Uuid topicId, Integer... owned) {
        ConsumerGroupHeartbeatRequestData request = new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(epoch);
        if (topicId != null) {
            request.setTopicPartitions(
                    owned.length == 0
                            ? List.of()
                            : List.of(new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                                    .setTopicId(topicId)
                                    .setPartitions(List.of(owned))));
        }
        return request;
    }

    /** The partitions the answer assigns, sorted; empty when it assigns none or leaves the assignment as it was. */
    private static List<Integer> partitions(ConsumerGroupHeartbeatResponseData response) {
        assertThat(response.errorCode()).as(response.errorMessage()).isEqualTo(Errors.NONE.code());
        if (response.assignment() == null) {
            return List.of();
        }
        return response.assignment().topicPartitions().stream()
                .flatMap(topic -> topic.partitions().stream())
                .sorted()
                .toList();
    }

    @Test
    void aStaticMemberThatClosesWithoutLeavingGetsItsPartitionsBackWhenItReturnsInTime() {
        ProtocolConsumer other = join("other", "static");
        ProtocolConsumer original =
                join("original", "static", Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-a"));
        awaitAssignment(List.of(other, original), PARTITIONS / 2);
        Set<TopicPartition> owned = original.assignment();
        double rebalances =
                server.meters().counter("floe.consumer.group.rebalances").count();

        original.crash(); // a static member closing this way sends epoch -2: it keeps its partitions for now
        ProtocolConsumer restarted =
                join("restarted", "static", Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-a"));

        awaitAssignment(List.of(other, restarted), PARTITIONS / 2);
        assertThat(restarted.assignment()).isEqualTo(owned);
        assertThat(server.meters().counter("floe.consumer.group.rebalances").count())
                .isEqualTo(rebalances);
    }

    @Test
    void aStaticMemberThatDoesNotReturnLosesItsPartitionsWhenItsSessionExpires() {
        ProtocolConsumer other = join("other", "static-gone");
        ProtocolConsumer gone =
                join("gone", "static-gone", Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-b"));
        awaitAssignment(List.of(other, gone), PARTITIONS / 2);

        gone.crash();

        awaitAssignment(List.of(other), PARTITIONS);
    }

    private ConsumerGroupHeartbeatResponseData heartbeat(WireClient client, ConsumerGroupHeartbeatRequestData request) {
        return (ConsumerGroupHeartbeatResponseData)
                client.call(ApiKeys.CONSUMER_GROUP_HEARTBEAT, (short) 1, ++correlationId, request)
                        .body();
    }

    @Test
    void everyRecordIsConsumedExactlyOnceAcrossHandoversWithCommits() {
        produce(0, 150);
        ProtocolConsumer a = join("a", "exactly-once");
        awaitValues(150);

        ProtocolConsumer b = join("b", "exactly-once");
        awaitAssignment(List.of(a, b), PARTITIONS / 2);
        produce(150, 150);
        awaitValues(300);

        ProtocolConsumer c = join("c", "exactly-once");
        awaitAssignment(List.of(a, b, c), PARTITIONS / 3);
        produce(300, 150);
        awaitValues(450);

        a.stop();
        b.stop();
        awaitAssignment(List.of(c), PARTITIONS);
        produce(450, 100);
        awaitValues(550);

        assertThat(ProtocolConsumer.values(consumers))
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, 550).mapToObj(i -> "v" + i).toList());
    }

    @Test
    void addedPartitionsAreAssigned() throws Exception {
        ProtocolConsumer a = join("a", "growing");
        ProtocolConsumer b = join("b", "growing");
        awaitAssignment(List.of(a, b), PARTITIONS / 2);

        try (Admin admin = admin()) {
            admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(PARTITIONS + 2)))
                    .all()
                    .get();
        }

        awaitAssignment(List.of(a, b), (PARTITIONS + 2) / 2, PARTITIONS + 2);
    }

    @Test
    void theRangeAssignorGivesEachMemberAContiguousRange() throws Exception {
        Map<String, Object> range = Map.of(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range");
        ProtocolConsumer a = join("a", "ranges", range);
        ProtocolConsumer b = join("b", "ranges", range);

        awaitAssignment(List.of(a, b), PARTITIONS / 2);
        assertThat(List.of(partitionsOf(a), partitionsOf(b)))
                .containsExactlyInAnyOrder(List.of(0, 1, 2), List.of(3, 4, 5));
        try (Admin admin = admin()) {
            assertThat(admin.describeConsumerGroups(List.of("ranges"))
                            .all()
                            .get()
                            .get("ranges")
                            .partitionAssignor())
                    .isEqualTo("range");
        }
    }

    @Test
    void adminListsAndDeletesConsumerGroups() throws Exception {
        ProtocolConsumer member = join("member", "listed");
        awaitAssignment(List.of(member), PARTITIONS);

        try (Admin admin = admin()) {
            GroupListing listed = admin.listGroups().all().get().stream()
                    .filter(group -> group.groupId().equals("listed"))
                    .findFirst()
                    .orElseThrow();
            assertThat(listed.type()).contains(GroupType.CONSUMER);
            assertThat(listed.protocol()).isEqualTo("consumer");
            assertThat(listed.groupState()).contains(GroupState.STABLE);
            MemberDescription described = admin.describeConsumerGroups(List.of("listed"))
                    .all()
                    .get()
                    .get("listed")
                    .members()
                    .iterator()
                    .next();
            assertThat(described.clientId()).isEqualTo("member");
            assertThat(described.memberEpoch())
                    .hasValueSatisfying(epoch -> assertThat(epoch).isPositive());

            member.stop();
            Eventually.await("the group to be empty", () -> state(admin, "listed") == GroupState.EMPTY);
            admin.deleteConsumerGroups(List.of("listed")).all().get();
            assertThat(admin.listGroups().all().get())
                    .extracting(GroupListing::groupId)
                    .doesNotContain("listed");
        }
    }

    @Test
    void aGroupIdCannotBeUsedByBothProtocolsAtOnce() {
        PollingConsumer classic = new PollingConsumer(
                "classic",
                server.bootstrap(),
                "mixed",
                TOPIC,
                Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName()));
        try {
            Eventually.await(
                    "the classic consumer to own the topic",
                    () -> classic.assignment().size() == PARTITIONS);
            ProtocolConsumer refused = join("refused", "mixed");
            Eventually.await("the consumer-protocol member to be refused", refused::failed);
            assertThat(refused.assignment()).isEmpty();
        } finally {
            classic.close();
        }
    }

    private static GroupState state(Admin admin, String groupId) {
        try {
            return admin.describeConsumerGroups(List.of(groupId))
                    .all()
                    .get()
                    .get(groupId)
                    .groupState();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static List<Integer> partitionsOf(ProtocolConsumer consumer) {
        return consumer.assignment().stream()
                .map(TopicPartition::partition)
                .sorted()
                .toList();
    }

    private ProtocolConsumer join(String name, String group) {
        return join(name, group, Map.of());
    }

    private ProtocolConsumer join(String name, String group, Map<String, Object> overrides) {
        ProtocolConsumer consumer = new ProtocolConsumer(name, server.bootstrap(), group, TOPIC, overrides);
        consumers.add(consumer);
        return consumer;
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap()));
    }

    private static void awaitAssignment(List<ProtocolConsumer> owners, int each) {
        awaitAssignment(owners, each, PARTITIONS);
    }

    /** Waits until the consumers own all {@code partitions}, disjointly, {@code each} apiece. */
    private static void awaitAssignment(List<ProtocolConsumer> owners, int each, int partitions) {
        Eventually.await(
                owners.size() + " consumers owning " + each + " partitions each",
                () -> {
                    Set<TopicPartition> union = new HashSet<>();
                    int total = 0;
                    for (ProtocolConsumer owner : owners) {
                        if (owner.assignment().size() != each) {
                            return false;
                        }
                        union.addAll(owner.assignment());
                        total += owner.assignment().size();
                    }
                    return union.size() == partitions && total == partitions;
                },
                () -> owners.stream().map(ProtocolConsumer::describe).collect(Collectors.joining(", ")));
    }

    private void awaitValues(int count) {
        Eventually.await(
                count + " records consumed",
                () -> ProtocolConsumer.values(consumers).size() >= count,
                () -> ProtocolConsumer.values(consumers).size() + " consumed");
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
