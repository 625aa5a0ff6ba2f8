package io.floe.agent.group;

import static io.floe.agent.group.ConsumerFixture.GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.group.ConsumerFixture.Member;
import io.floe.agent.group.consumer.ConsumerGroupState;
import io.floe.core.log.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer-protocol groups beside the classic ones: offsets under member epochs, listing,
 * describing, deleting, offset retention, and a group id that only one protocol may use at a time.
 */
class ConsumerGroupAdminTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition AUDIT_0 = new TopicPartition("audit", 0);

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
    void membersCommitAndFetchUnderTheirCurrentEpoch() {
        Member member = fixture.member();
        member.join();

        assertThat(commit(member.memberId, member.epoch).error()).isEqualTo(GroupError.NONE);
        assertThat(coordinator.committedOffsets(GROUP)).containsOnlyKeys(ORDERS_0);
        assertThat(commit(member.memberId, member.epoch + 1).error()).isEqualTo(GroupError.STALE_MEMBER_EPOCH);
        assertThat(commit("stranger", 1).error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(commit("", -1).error())
                .as("no commits from outside while it has members")
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);

        assertThat(coordinator.validateOffsetFetch(GROUP, member.memberId, member.epoch))
                .isEqualTo(GroupError.NONE);
        assertThat(coordinator.validateOffsetFetch(GROUP, member.memberId, 7)).isEqualTo(GroupError.STALE_MEMBER_EPOCH);
        assertThat(coordinator.validateOffsetFetch(GROUP, "stranger", 1)).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(coordinator.validateOffsetFetch(GROUP, null, -1))
                .as("admin clients")
                .isEqualTo(GroupError.NONE);

        member.leave();
        assertThat(commit("", -1).error())
                .as("an empty group takes commits from outside")
                .isEqualTo(GroupError.NONE);
    }

    /**
     * KIP-1251: a member whose epoch moved on while it kept a partition may still commit that
     * partition at its previous epoch (its client commits before it hears of the new epoch), but not
     * a partition it gave up or gained since, and never at an epoch older than the partition's.
     */
    @Test
    void aCommitAtAnOlderEpochPassesOnlyForPartitionsHeldSinceThatEpoch() {
        Member first = fixture.member();
        first.join();
        Member second = fixture.member();
        second.join();
        first.heartbeat(); // told to revoke three partitions, still at epoch 1
        int kept = first.orders().iterator().next();
        first.heartbeat(); // reports them revoked: epoch 2, keeping the other three
        second.heartbeat(); // takes the three first gave up, at epoch 2
        assertThat(first.epoch).isEqualTo(2);
        assertThat(second.epoch).isEqualTo(2);
        int movedToSecond = second.orders().iterator().next();

        assertThat(commit(first.memberId, 1, kept).error())
                .as("a partition held since epoch 1")
                .isEqualTo(GroupError.NONE);
        assertThat(commit(first.memberId, 1, movedToSecond).error())
                .as("a partition given up since")
                .isEqualTo(GroupError.STALE_MEMBER_EPOCH);
        assertThat(commit(second.memberId, 1, movedToSecond).error())
                .as("a partition gained at epoch 2")
                .isEqualTo(GroupError.STALE_MEMBER_EPOCH);
        assertThat(commit(second.memberId, 2, movedToSecond).error()).isEqualTo(GroupError.NONE);
        assertThat(commit(first.memberId, 3, kept).error())
                .as("an epoch the member has not reached")
                .isEqualTo(GroupError.STALE_MEMBER_EPOCH);
    }

    private OffsetCommitResult commit(String memberId, int epoch) {
        return commit(memberId, epoch, 0);
    }

    private OffsetCommitResult commit(String memberId, int epoch, int partition) {
        return coordinator.commitOffsets(new OffsetCommitRequest(
                GROUP,
                memberId,
                null,
                epoch,
                Map.of(new TopicPartition("orders", partition), new OffsetCommitRequest.NewOffset(10, 0, ""))));
    }

    @Test
    void consumerGroupsAreListedWithTheirTypeAndStateAndDeletedOnceEmpty() {
        Member member = fixture.member();
        member.join();
        commit(member.memberId, member.epoch);

        assertThat(coordinator.listGroups())
                .containsExactly(new GroupListing(GROUP, "consumer", "Stable", GroupType.CONSUMER));
        assertThat(coordinator.typeOf(GROUP)).contains(GroupType.CONSUMER);
        assertThat(coordinator.describeGroup(GROUP).state())
                .as("DescribeGroups is for classic groups")
                .isEqualTo(GroupState.DEAD);
        assertThat(coordinator.deleteGroup(GROUP)).isEqualTo(GroupError.NON_EMPTY_GROUP);

        member.leave();
        assertThat(coordinator.listGroups())
                .containsExactly(new GroupListing(GROUP, "consumer", "Empty", GroupType.CONSUMER));
        assertThat(coordinator.deleteGroup(GROUP)).isEqualTo(GroupError.NONE);

        assertThat(coordinator.listGroups()).isEmpty();
        assertThat(coordinator.committedOffsets(GROUP)).isEmpty();
        assertThat(coordinator.describeConsumerGroup(GROUP)).isEmpty();
    }

    @Test
    void offsetsOfTopicsTheGroupConsumesAreNotDeleted() {
        Member member = fixture.member();
        member.join();
        coordinator.commitOffsets(new OffsetCommitRequest(
                GROUP,
                member.memberId,
                null,
                member.epoch,
                Map.of(
                        ORDERS_0,
                        new OffsetCommitRequest.NewOffset(1, 0, ""),
                        AUDIT_0,
                        new OffsetCommitRequest.NewOffset(1, 0, ""))));

        OffsetDeleteResult result = coordinator.deleteOffsets(GROUP, List.of(ORDERS_0, AUDIT_0), metadata -> {
            throw new AssertionError("consumer groups have no JoinGroup metadata");
        });

        assertThat(result.partitions())
                .containsOnly(
                        Map.entry(ORDERS_0, GroupError.GROUP_SUBSCRIBED_TO_TOPIC), Map.entry(AUDIT_0, GroupError.NONE));
        assertThat(coordinator.committedOffsets(GROUP)).containsOnlyKeys(ORDERS_0);
    }

    @Test
    void offsetsOfAGroupEmptyForTheWholeRetentionExpireAndTheGroupLeavesMemory() {
        fixture.close();
        fixture = new ConsumerFixture(
                dir.resolve("retention"),
                GroupCoordinatorConfig.defaults().withOffsetsRetention(Duration.ofHours(1), Duration.ofMinutes(1)));
        coordinator = fixture.coordinator;
        Member member = fixture.member();
        member.join();
        commit(member.memberId, member.epoch);
        fixture.passTime(Duration.ofHours(2).toMillis());
        assertThat(coordinator.expireOffsets())
                .as("a group with members keeps its offsets")
                .isZero();

        member.leave();
        fixture.timers.advance(Duration.ofMinutes(61).toMillis());

        assertThat(coordinator.expireOffsets()).isEqualTo(1);
        assertThat(coordinator.listGroups()).isEmpty();
    }

    @Test
    void aClassicGroupWithMembersKeepsItsIdFromTheConsumerProtocol() {
        CoordinatorFixture classic = fixture.coordinatorFixture;
        String classicGroup = CoordinatorFixture.GROUP;
        classic.stableGroup(1);

        ConsumerHeartbeatResult refused = fixture.send(new ConsumerHeartbeat(
                classicGroup,
                "m",
                0,
                null,
                null,
                1000,
                List.of("orders"),
                null,
                null,
                io.floe.agent.group.consumer.Assignment.EMPTY,
                "c",
                "h",
                true));

        assertThat(refused.error()).isEqualTo(GroupError.GROUP_ID_NOT_FOUND);
        assertThat(refused.errorMessage()).isEqualTo("Group payments is not a consumer group.");
        assertThat(coordinator.typeOf(classicGroup)).contains(GroupType.CLASSIC);
    }

    @Test
    void aConsumerGroupWithMembersKeepsItsIdFromTheClassicProtocol() {
        fixture.member().join();

        CompletableFuture<JoinResponse> join = coordinator.join(new JoinRequest(
                GROUP,
                "",
                null,
                "client",
                "/127.0.0.1",
                10_000,
                30_000,
                "consumer",
                CoordinatorFixture.protocols("range"),
                true,
                true,
                null));

        assertThat(join.join().error()).isEqualTo(GroupError.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(coordinator.describeConsumerGroup(GROUP).orElseThrow().state())
                .isEqualTo(ConsumerGroupState.STABLE);
    }

    @Test
    void anEmptyGroupOfEitherProtocolGivesItsIdToTheOther() {
        Member member = fixture.member();
        member.join();
        member.leave();

        JoinResponse classic = coordinator
                .join(new JoinRequest(
                        GROUP,
                        "",
                        null,
                        "client",
                        "/127.0.0.1",
                        10_000,
                        30_000,
                        "consumer",
                        CoordinatorFixture.protocols("range"),
                        true,
                        true,
                        null))
                .join();
        assertThat(classic.error()).isEqualTo(GroupError.MEMBER_ID_REQUIRED);
        assertThat(coordinator.typeOf(GROUP)).contains(GroupType.CLASSIC);
        assertThat(coordinator.describeConsumerGroup(GROUP)).isEmpty();

        Member again = fixture.member();
        assertThat(again.join().error()).isEqualTo(GroupError.NONE);
        assertThat(coordinator.typeOf(GROUP)).contains(GroupType.CONSUMER);
        assertThat(coordinator.listGroups()).extracting(GroupListing::type).containsExactly(GroupType.CONSUMER);
    }

    @Test
    void metersCountConsumerGroupsByState() {
        fixture.member().join();

        assertThat(fixture.coordinatorFixture
                        .meters
                        .get("floe.consumer.groups")
                        .tag("state", "Stable")
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(fixture.coordinatorFixture
                        .meters
                        .get("floe.groups")
                        .tag("state", "Stable")
                        .gauge()
                        .value())
                .isZero();
        assertThat(Optional.ofNullable(fixture.coordinatorFixture
                                .meters
                                .find("floe.consumer.group.rebalances")
                                .counter())
                        .map(c -> c.count())
                        .orElse(0.0))
                .isEqualTo(1);
        assertThat(Set.of(GroupType.values())).hasSize(2);
    }
}
