package io.floe.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.topic.NewTopic;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients' Admin group operations, as Kafka's own tools use them, against a real agent. The
 * consumer-group listing calls are deprecated in kafka-clients 4.x but still what the tools call.
 */
@SuppressWarnings({"deprecation", "removal"})
class GroupAdminTest {

    private static final String TOPIC = "orders";
    private static final String GROUP = "billing";

    @TempDir
    Path dir;

    private GroupServer server;
    private Admin admin;
    private PollingConsumer first;
    private PollingConsumer second;

    @BeforeEach
    void start() {
        server = new GroupServer(dir);
        server.agent().topics().create(new NewTopic(TOPIC, 4, Map.of()), false);
        server.agent().topics().create(new NewTopic("audit", 1, Map.of()), false);
        admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                server.bootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                20_000));
        produce(40);
        first = new PollingConsumer("first", server.bootstrap(), GROUP, TOPIC, Map.of());
        second = new PollingConsumer("second", server.bootstrap(), GROUP, TOPIC, Map.of());
        Eventually.await(
                "both consumers to own two partitions, read everything and commit it",
                () -> first.assignment().size() == 2
                        && second.assignment().size() == 2
                        && first.received().size() + second.received().size() == 40
                        && committedRecords() == 40);
    }

    /** The records the group's committed offsets cover (a consumer commits after it received a poll's records). */
    private long committedRecords() {
        try {
            return admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get().values().stream()
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
        } catch (ExecutionException notYet) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void stop() {
        for (AutoCloseable open : new AutoCloseable[] {first, second, admin, server}) {
            if (open != null) {
                try {
                    open.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    @Test
    void listsConsumerGroupsWithTheirStates() throws Exception {
        admin.alterConsumerGroupOffsets("simple", Map.of(new TopicPartition("audit", 0), new OffsetAndMetadata(3)))
                .all()
                .get();

        ConsumerGroupListing listed = listing(admin.listConsumerGroups().all().get(), GROUP);
        assertThat(listed.groupState()).contains(GroupState.STABLE);
        assertThat(listed.type()).contains(GroupType.CLASSIC);
        assertThat(listed.isSimpleConsumerGroup()).isFalse();
        assertThat(listing(admin.listConsumerGroups().all().get(), "simple").isSimpleConsumerGroup())
                .isTrue();
        assertThat(admin.listConsumerGroups(new ListConsumerGroupsOptions().inGroupStates(Set.of(GroupState.EMPTY)))
                        .all()
                        .get())
                .extracting(ConsumerGroupListing::groupId)
                .containsExactly("simple");
        assertThat(admin.listGroups().all().get())
                .extracting(GroupListing::groupId)
                .contains(GROUP, "simple");
    }

    @Test
    void describesMembersAndTheirAssignments() throws Exception {
        ConsumerGroupDescription described = admin.describeConsumerGroups(
                        List.of(GROUP), new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true))
                .all()
                .get()
                .get(GROUP);

        assertThat(described.groupState()).isEqualTo(GroupState.STABLE);
        assertThat(described.partitionAssignor()).isEqualTo("range");
        assertThat(described.coordinator().id()).isZero();
        assertThat(described.members())
                .extracting(MemberDescription::clientId)
                .containsExactlyInAnyOrder("first", "second");
        Set<TopicPartition> assigned = new HashSet<>();
        described
                .members()
                .forEach(member -> assigned.addAll(member.assignment().topicPartitions()));
        assertThat(assigned).hasSize(4);
        assertThat(described.authorizedOperations())
                .contains(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE);
        assertThatThrownBy(() ->
                        admin.describeConsumerGroups(List.of("missing")).all().get())
                .hasCauseInstanceOf(GroupIdNotFoundException.class);
    }

    @Test
    void listsAndAltersCommittedOffsets() throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata()
                .get();
        assertThat(committed).hasSize(4);
        assertThat(committed.values().stream()
                        .mapToLong(OffsetAndMetadata::offset)
                        .sum())
                .isEqualTo(40);

        TopicPartition partition = new TopicPartition(TOPIC, 0);
        assertThatThrownBy(() -> admin.alterConsumerGroupOffsets(GROUP, Map.of(partition, new OffsetAndMetadata(1)))
                        .all()
                        .get())
                .hasCauseInstanceOf(UnknownMemberIdException.class);

        first.stop();
        second.stop();
        admin.alterConsumerGroupOffsets(GROUP, Map.of(partition, new OffsetAndMetadata(1, "reset by test")))
                .all()
                .get();

        OffsetAndMetadata altered = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata()
                .get()
                .get(partition);
        assertThat(altered.offset()).isEqualTo(1);
        assertThat(altered.metadata()).isEqualTo("reset by test");
    }

    @Test
    void deletesOffsetsOfTopicsTheGroupDoesNotConsume() throws Exception {
        admin.alterConsumerGroupOffsets("simple", Map.of(new TopicPartition("audit", 0), new OffsetAndMetadata(3)))
                .all()
                .get();
        TopicPartition subscribed = new TopicPartition(TOPIC, 0);

        assertThatThrownBy(() -> admin.deleteConsumerGroupOffsets(GROUP, Set.of(subscribed))
                        .all()
                        .get())
                .hasCauseInstanceOf(GroupSubscribedToTopicException.class);
        admin.deleteConsumerGroupOffsets("simple", Set.of(new TopicPartition("audit", 0)))
                .all()
                .get();

        assertThat(admin.listConsumerGroupOffsets("simple")
                        .partitionsToOffsetAndMetadata()
                        .get())
                .isEmpty();
    }

    @Test
    void deletesGroupsOnlyOnceTheyAreEmpty() throws Exception {
        assertThatThrownBy(
                        () -> admin.deleteConsumerGroups(List.of(GROUP)).all().get())
                .hasCauseInstanceOf(GroupNotEmptyException.class);

        first.stop();
        second.stop();
        admin.deleteConsumerGroups(List.of(GROUP)).all().get();

        assertThat(admin.listConsumerGroups().all().get())
                .extracting(ConsumerGroupListing::groupId)
                .doesNotContain(GROUP);
        assertThat(server.agent().groups().committedOffsets(GROUP)).isEmpty();
        assertThatThrownBy(
                        () -> admin.deleteConsumerGroups(List.of(GROUP)).all().get())
                .hasCauseInstanceOf(GroupIdNotFoundException.class);
    }

    private static ConsumerGroupListing listing(java.util.Collection<ConsumerGroupListing> listings, String groupId) {
        return listings.stream()
                .filter(listing -> listing.groupId().equals(groupId))
                .findFirst()
                .orElseThrow();
    }

    private void produce(int count) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap(), ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i));
            }
            producer.flush();
        }
    }
}
