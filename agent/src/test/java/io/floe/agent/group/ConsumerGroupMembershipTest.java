package io.floe.agent.group;

import static io.floe.agent.group.ConsumerFixture.GROUP;
import static io.floe.agent.group.ConsumerFixture.ORDERS_ID;
import static io.floe.agent.group.ConsumerFixture.REBALANCE_TIMEOUT_MS;
import static io.floe.agent.group.ConsumerFixture.joinRequest;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.group.ConsumerFixture.Member;
import io.floe.agent.group.consumer.Assignment;
import io.floe.agent.group.consumer.ConsumerGroupState;
import io.floe.agent.group.consumer.TopicMetadata;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer protocol (KIP-848) on virtual time: epochs, server-side assignment, reconciliation
 * that revokes before it assigns, leaving, session and revocation timeouts, static members, new
 * partitions and regex subscriptions, and Kafka's errors.
 */
class ConsumerGroupMembershipTest {

    private static final long SESSION_MS =
            GroupCoordinatorConfig.defaults().consumerGroups().sessionTimeout().toMillis();

    @TempDir
    Path dir;

    private ConsumerFixture fixture;
    private GroupCoordinator coordinator;

    @BeforeEach
    void start() {
        fixture = new ConsumerFixture(dir);
        coordinator = fixture.coordinator;
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void aFirstMemberGetsEveryPartitionAtEpochOne() {
        Member member = fixture.member();

        ConsumerHeartbeatResult joined = member.join();

        assertThat(joined.error()).isEqualTo(GroupError.NONE);
        assertThat(joined.memberId()).isEqualTo(member.memberId);
        assertThat(joined.memberEpoch()).isEqualTo(1);
        assertThat(joined.heartbeatIntervalMs()).isEqualTo(5_000);
        assertThat(joined.assignment()).isEqualTo(Assignment.of(ORDERS_ID, 0, 1, 2, 3, 4, 5));
        ConsumerGroupDescription described =
                coordinator.describeConsumerGroup(GROUP).orElseThrow();
        assertThat(described.state()).isEqualTo(ConsumerGroupState.STABLE);
        assertThat(described.groupEpoch()).isEqualTo(1);
        assertThat(described.assignmentEpoch()).isEqualTo(1);
        assertThat(described.assignor()).isEqualTo("uniform");
        assertThat(described.members()).singleElement().satisfies(m -> {
            assertThat(m.memberEpoch()).isEqualTo(1);
            assertThat(m.subscribedTopicNames()).containsExactly("orders");
            assertThat(m.assignment()).isEqualTo(m.targetAssignment());
        });
        assertThat(member.heartbeat().assignment())
                .as("unchanged assignments are not repeated")
                .isNull();
    }

    @Test
    void aNewMemberGetsPartitionsOnlyAfterTheirOwnerRevokedThem() {
        Member first = fixture.member();
        first.join();
        Member second = fixture.member();

        ConsumerHeartbeatResult joined = second.join();
        assertThat(joined.memberEpoch()).isEqualTo(2);
        assertThat(joined.assignment()).isEqualTo(Assignment.EMPTY);
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().state())
                .isEqualTo(ConsumerGroupState.RECONCILING);

        ConsumerHeartbeatResult revoke = first.heartbeat();
        assertThat(revoke.memberEpoch())
                .as("a revoking member stays at its epoch")
                .isEqualTo(1);
        assertThat(revoke.assignment().size()).isEqualTo(3);
        assertThat(second.heartbeat().assignment())
                .as("nothing moves before the revocation is confirmed")
                .isNull();
        fixture.assertNoPartitionOwnedTwice();

        assertThat(first.heartbeat().memberEpoch()).isEqualTo(2);
        ConsumerHeartbeatResult taken = second.heartbeat();
        assertThat(taken.assignment().size()).isEqualTo(3);
        fixture.assertNoPartitionOwnedTwice();
        assertThat(first.orders()).doesNotContainAnyElementsOf(second.orders());
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().state())
                .isEqualTo(ConsumerGroupState.STABLE);
    }

    @Test
    void threeMembersSplitSixPartitionsAndALeavingMembersShareMoves() {
        List<Member> members = List.of(fixture.member(), fixture.member(), fixture.member());
        members.forEach(Member::join);
        fixture.settle();
        assertThat(members).allSatisfy(member -> assertThat(member.orders()).hasSize(2));

        ConsumerHeartbeatResult left = members.get(0).leave();
        assertThat(left.error()).isEqualTo(GroupError.NONE);
        assertThat(left.memberEpoch()).isEqualTo(-1);
        fixture.settle();

        assertThat(members.subList(1, 3))
                .allSatisfy(member -> assertThat(member.orders()).hasSize(3));
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().members())
                .hasSize(2);
        assertThat(fixture.coordinatorFixture
                        .meters
                        .counter("floe.consumer.group.rebalances")
                        .count())
                .isEqualTo(4);
    }

    @Test
    void aMemberWhoseSessionExpiresIsRemovedAndItsPartitionsMove() {
        Member survivor = fixture.member();
        Member crashed = fixture.member();
        survivor.join();
        crashed.join();
        fixture.settle();

        crashed.crash();
        fixture.passTime(SESSION_MS
                - fixture.coordinator
                        .config()
                        .consumerGroups()
                        .heartbeatInterval()
                        .toMillis());
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().members())
                .hasSize(2);
        fixture.passTime(10_000);

        assertThat(survivor.orders()).hasSize(6);
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().members())
                .hasSize(1);
        assertThat(crashed.heartbeat().error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsFenced() {
        Member stubborn = fixture.member();
        stubborn.join();
        Assignment everything = stubborn.owned;
        Member waiting = fixture.member();
        waiting.join();

        // It keeps heartbeating (so its session lives) but keeps reporting every partition.
        for (long passed = 0; passed < REBALANCE_TIMEOUT_MS; passed += 5_000) {
            assertThat(coordinator
                            .consumerHeartbeat(
                                    new ConsumerHeartbeat(
                                            GROUP,
                                            stubborn.memberId,
                                            1,
                                            null,
                                            null,
                                            -1,
                                            null,
                                            null,
                                            null,
                                            everything,
                                            "client",
                                            "/127.0.0.1",
                                            true),
                                    fixture.topics)
                            .error())
                    .isEqualTo(GroupError.NONE);
            waiting.heartbeat();
            fixture.timers.advance(5_000);
        }

        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().members())
                .extracting(m -> m.memberId())
                .containsExactly(waiting.memberId);
        assertThat(waiting.heartbeat().assignment()).isEqualTo(everything);
    }

    @Test
    void epochsAreCheckedAsKafkaChecksThem() {
        Member member = fixture.member();
        member.join();
        Member other = fixture.member();
        other.join();
        fixture.settle(); // member: epoch 1 -> 2 after revoking

        assertThat(heartbeatAt(member, member.epoch + 1, member.owned).error())
                .isEqualTo(GroupError.FENCED_MEMBER_EPOCH);
        assertThat(heartbeatAt(member, member.epoch - 1, member.owned).error())
                .as("the previous epoch with owned partitions within the assignment: a lost answer")
                .isEqualTo(GroupError.NONE);
        assertThat(heartbeatAt(member, member.epoch - 1, Assignment.of(ORDERS_ID, 0, 1, 2, 3, 4, 5))
                        .error())
                .isEqualTo(GroupError.FENCED_MEMBER_EPOCH);
        assertThat(heartbeatAt(member, member.epoch - 1, null).error()).isEqualTo(GroupError.FENCED_MEMBER_EPOCH);
        ConsumerHeartbeatResult unknown = fixture.send(new ConsumerHeartbeat(
                GROUP, "stranger", 3, null, null, -1, null, null, null, null, "client", "/127.0.0.1", true));
        assertThat(unknown.error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(unknown.errorMessage()).isEqualTo("Member stranger is not a member of group orders-app.");
        assertThat(fixture.send(new ConsumerHeartbeat(
                                "lost-in-restart",
                                "m",
                                3,
                                null,
                                null,
                                -1,
                                null,
                                null,
                                null,
                                null,
                                "client",
                                "/127.0.0.1",
                                true))
                        .error())
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);

        ConsumerHeartbeatResult rejoined = member.join();
        assertThat(rejoined.error())
                .as("a fenced member rejoins with epoch 0 and its id")
                .isEqualTo(GroupError.NONE);
        assertThat(rejoined.assignment().size()).isEqualTo(3);
    }

    private ConsumerHeartbeatResult heartbeatAt(Member member, int epoch, Assignment owned) {
        return fixture.send(new ConsumerHeartbeat(
                GROUP, member.memberId, epoch, null, null, -1, null, null, null, owned, "client", "/127.0.0.1", true));
    }

    @Test
    void malformedHeartbeatsAreRefusedWithKafkasErrors() {
        assertInvalid(
                new ConsumerHeartbeat(
                        GROUP, "m", 0, null, null, -1, List.of("orders"), null, null, Assignment.EMPTY, "c", "h", true),
                "RebalanceTimeoutMs must be provided in first request.");
        assertInvalid(
                new ConsumerHeartbeat(
                        GROUP, "m", 0, null, null, 1000, null, null, null, Assignment.EMPTY, "c", "h", true),
                "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
        assertInvalid(
                new ConsumerHeartbeat(
                        GROUP,
                        "m",
                        0,
                        null,
                        null,
                        1000,
                        List.of("orders"),
                        null,
                        null,
                        Assignment.of(ORDERS_ID, 0),
                        "c",
                        "h",
                        true),
                "TopicPartitions must be empty when (re-)joining.");
        assertInvalid(joinRequest("", null, List.of("orders"), null, null), "MemberId can't be empty.");
        assertInvalid(
                new ConsumerHeartbeat(
                        "", "m", 0, null, null, 1000, List.of("orders"), null, null, Assignment.EMPTY, "c", "h", true),
                "GroupId can't be empty.");
        assertInvalid(
                new ConsumerHeartbeat(GROUP, "m", -3, null, null, -1, null, null, null, null, "c", "h", true),
                "MemberEpoch is invalid.");
        assertInvalid(
                new ConsumerHeartbeat(GROUP, "m", -2, null, null, -1, null, null, null, null, "c", "h", true),
                "InstanceId can't be null.");

        ConsumerHeartbeatResult assignor = fixture.send(joinRequest("m", null, List.of("orders"), null, "sticky"));
        assertThat(assignor.error()).isEqualTo(GroupError.UNSUPPORTED_ASSIGNOR);
        assertThat(assignor.errorMessage())
                .isEqualTo("ServerAssignor sticky is not supported. Supported assignors: uniform, range.");
        assertThat(fixture.send(joinRequest("m", null, null, "orders[", null)).error())
                .isEqualTo(GroupError.INVALID_REGULAR_EXPRESSION);
        assertThat(coordinator.describeConsumerGroup(GROUP))
                .as("refused joins create no group")
                .isEmpty();
    }

    private void assertInvalid(ConsumerHeartbeat request, String message) {
        ConsumerHeartbeatResult result = fixture.send(request);
        assertThat(result.error()).isEqualTo(GroupError.INVALID_REQUEST);
        assertThat(result.errorMessage()).isEqualTo(message);
    }

    @Test
    void aV0JoinWithoutAMemberIdGetsOneFromTheCoordinator() {
        ConsumerHeartbeatResult joined = fixture.send(new ConsumerHeartbeat(
                GROUP, "", 0, null, null, 1000, List.of("orders"), null, null, Assignment.EMPTY, "c", "h", false));

        assertThat(joined.error()).isEqualTo(GroupError.NONE);
        assertThat(joined.memberId()).isNotEmpty();
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().members())
                .extracting(m -> m.memberId())
                .containsExactly(joined.memberId());
    }

    @Test
    void addedPartitionsAndNewMatchingTopicsReachTheAssignment() {
        fixture.topics.put(new TopicMetadata(new UUID(0, 7), "orders-eu", 2));
        Member byName = fixture.member();
        Member byRegex = fixture.new Member("regex", null, List.of(), "orders.*");
        fixture.members.add(byRegex);
        byName.join();
        byRegex.join();
        fixture.settle();
        assertThat(byName.owned.size() + byRegex.owned.size()).isEqualTo(8);
        assertThat(byName.owned.partitions().keySet()).containsExactly(ORDERS_ID);

        fixture.topics.put(new TopicMetadata(ORDERS_ID, "orders", 8));
        fixture.settle();
        assertThat(byName.owned.size() + byRegex.owned.size()).isEqualTo(10);

        UUID apac = new UUID(0, 8);
        fixture.topics.put(new TopicMetadata(apac, "orders-apac", 4));
        fixture.settle();
        assertThat(byRegex.owned.partitionsOf(apac))
                .as("regexes are re-read only every 10 s")
                .isEmpty();
        fixture.passTime(10_000);
        fixture.settle();
        assertThat(byRegex.owned.partitionsOf(apac)).hasSize(4);
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().members())
                .filteredOn(m -> m.memberId().equals("regex"))
                .singleElement()
                .satisfies(m -> assertThat(m.subscribedTopicRegex()).isEqualTo("orders.*"));
    }

    @Test
    void aStaticMemberLeavingForNowKeepsItsPartitionsForItsNextIncarnation() {
        Member other = fixture.member();
        Member original = fixture.staticMember("instance-a");
        other.join();
        original.join();
        fixture.settle();
        Set<Integer> owned = original.orders();
        int epoch = coordinator.describeConsumerGroup(GROUP).orElseThrow().groupEpoch();

        assertThat(original.leave().memberEpoch()).isEqualTo(-2);
        Member restarted = fixture.staticMember("instance-a");
        ConsumerHeartbeatResult rejoined = restarted.join();

        assertThat(rejoined.error()).isEqualTo(GroupError.NONE);
        assertThat(restarted.orders()).isEqualTo(owned);
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().groupEpoch())
                .isEqualTo(epoch);
        Member impostor = fixture.staticMember("instance-a");
        assertThat(impostor.join().error()).isEqualTo(GroupError.UNRELEASED_INSTANCE_ID);
        assertThat(fixture.send(new ConsumerHeartbeat(
                                GROUP,
                                original.memberId,
                                3,
                                "instance-a",
                                null,
                                -1,
                                null,
                                null,
                                null,
                                null,
                                "c",
                                "h",
                                true))
                        .error())
                .isEqualTo(GroupError.FENCED_INSTANCE_ID);
    }

    @Test
    void aStaticMemberThatDoesNotReturnIsRemovedWhenItsSessionExpires() {
        Member other = fixture.member();
        Member gone = fixture.staticMember("instance-b");
        other.join();
        gone.join();
        fixture.settle();

        gone.leave();
        fixture.passTime(SESSION_MS + 5_000);

        assertThat(other.orders()).hasSize(6);
    }

    @Test
    void membersChooseTheRangeAssignor() {
        Member a = fixture.member();
        Member b = fixture.member();
        a.join("range");
        b.join("range");
        fixture.settle();

        assertThat(List.of(a.orders(), b.orders())).containsExactlyInAnyOrder(Set.of(0, 1, 2), Set.of(3, 4, 5));
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().assignor())
                .isEqualTo("range");
    }

    @Test
    void aFullGroupRefusesNewMembers() {
        fixture.close();
        fixture = new ConsumerFixture(
                dir.resolve("small"), GroupCoordinatorConfig.defaults().withMaxGroupSize(1));
        fixture.member().join();

        ConsumerHeartbeatResult refused = fixture.member().join();

        assertThat(refused.error()).isEqualTo(GroupError.GROUP_MAX_SIZE_REACHED);
    }

    @Test
    void configuredTimeoutsAreUsed() {
        fixture.close();
        fixture = new ConsumerFixture(
                dir.resolve("fast"),
                GroupCoordinatorConfig.defaults()
                        .withConsumerGroups(ConsumerGroupConfig.defaults()
                                .withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(200))));
        Member member = fixture.member();

        assertThat(member.join().heartbeatIntervalMs()).isEqualTo(200);
        fixture.timers.advance(2_000);

        assertThat(member.heartbeat().error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }
}
