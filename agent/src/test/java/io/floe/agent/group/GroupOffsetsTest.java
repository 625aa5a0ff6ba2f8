package io.floe.agent.group;

import static io.floe.agent.group.CoordinatorFixture.GROUP;
import static io.floe.agent.group.CoordinatorFixture.INITIAL_DELAY_MS;
import static io.floe.agent.group.CoordinatorFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.group.CommittedOffset;
import io.floe.core.log.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Committed offsets and the group administration around them, on virtual time and a real SQLite store. */
class GroupOffsetsTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS_1 = new TopicPartition("orders", 1);
    private static final TopicPartition AUDIT_0 = new TopicPartition("audit", 0);

    @TempDir
    Path dir;

    private CoordinatorFixture fixture;
    private GroupCoordinator coordinator;

    @BeforeEach
    void start() {
        fixture = new CoordinatorFixture(dir);
        coordinator = fixture.coordinator;
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void membersOfTheCurrentGenerationCommitAndReadTheirOffsets() {
        String member = fixture.stableGroup(1).get(0);

        OffsetCommitResult result = commit(member, 1, Map.of(ORDERS_0, offset(42, "a"), ORDERS_1, offset(7, null)));

        assertThat(result.error()).isEqualTo(GroupError.NONE);
        assertThat(result.partitions())
                .containsOnly(Map.entry(ORDERS_0, GroupError.NONE), Map.entry(ORDERS_1, GroupError.NONE));
        assertThat(coordinator.committedOffsets(GROUP))
                .containsExactly(
                        Map.entry(ORDERS_0, new CommittedOffset(42, 3, "a", fixture.timers.nowMs())),
                        Map.entry(ORDERS_1, new CommittedOffset(7, 3, "", fixture.timers.nowMs())));
        assertThat(fixture.meters.counter("floe.group.offset.commits").count()).isEqualTo(2);
    }

    @Test
    void commitsAreFencedLikeKafkas() {
        List<String> members = fixture.stableGroup(1);
        String member = members.get(0);

        assertThat(commit(member, 0, Map.of(ORDERS_0, offset(1, ""))).error()).isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(commit("nobody", 1, Map.of(ORDERS_0, offset(1, ""))).error())
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(commit("", -1, Map.of(ORDERS_0, offset(1, ""))).error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(coordinator
                        .commitOffsets(
                                new OffsetCommitRequest("unknown-group", "m", null, 3, Map.of(ORDERS_0, offset(1, ""))))
                        .error())
                .isEqualTo(GroupError.GROUP_ID_NOT_FOUND);
        assertThat(coordinator
                        .commitOffsets(new OffsetCommitRequest("", "", null, -1, Map.of(ORDERS_0, offset(1, ""))))
                        .error())
                .isEqualTo(GroupError.INVALID_GROUP_ID);

        fixture.join(fixture.newMemberId());
        fixture.join(member);
        fixture.timers.advance(INITIAL_DELAY_MS);
        assertThat(fixture.state()).isEqualTo(GroupState.COMPLETING_REBALANCE);
        assertThat(commit(member, 2, Map.of(ORDERS_0, offset(1, ""))).error())
                .isEqualTo(GroupError.REBALANCE_IN_PROGRESS);
        assertThat(coordinator.committedOffsets(GROUP)).isEmpty();
    }

    @Test
    void transactionalCommitsAreCheckedLikeKafkasAndStoreNothing() {
        String member = fixture.stableGroup(1).get(0);

        assertThat(coordinator.validateTransactionalOffsetCommit(GROUP, member, null, 1))
                .isEqualTo(GroupError.NONE);
        assertThat(coordinator.validateTransactionalOffsetCommit(GROUP, member, null, 0))
                .isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(coordinator.validateTransactionalOffsetCommit(GROUP, "nobody", null, 1))
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(coordinator.validateTransactionalOffsetCommit(GROUP, "", null, -1))
                .as("a producer outside group management passes, members or not")
                .isEqualTo(GroupError.NONE);
        assertThat(coordinator.validateTransactionalOffsetCommit("unknown-group", "m", null, 3))
                .isEqualTo(GroupError.GROUP_ID_NOT_FOUND);
        assertThat(coordinator.validateTransactionalOffsetCommit("unknown-group", "", null, -1))
                .isEqualTo(GroupError.NONE);

        fixture.join(fixture.newMemberId());
        fixture.join(member);
        fixture.timers.advance(INITIAL_DELAY_MS);
        assertThat(fixture.state()).isEqualTo(GroupState.COMPLETING_REBALANCE);
        assertThat(coordinator.validateTransactionalOffsetCommit(GROUP, member, null, 2))
                .as("unlike OffsetCommit, not refused during a rebalance")
                .isEqualTo(GroupError.NONE);
        assertThat(coordinator.committedOffsets(GROUP)).isEmpty();
    }

    @Test
    void commitsFromOutsideTheGroupAreAcceptedWhileItHasNoMembers() {
        assertThat(coordinator
                        .commitOffsets(new OffsetCommitRequest("simple", "", null, -1, Map.of(ORDERS_0, offset(5, ""))))
                        .error())
                .isEqualTo(GroupError.NONE);

        assertThat(coordinator.committedOffsets("simple")).containsOnlyKeys(ORDERS_0);
        assertThat(coordinator.listGroups()).containsExactly(new GroupListing("simple", "", GroupState.EMPTY));
        assertThat(coordinator.describeGroup("simple").state()).isEqualTo(GroupState.EMPTY);
    }

    @Test
    void tooLongMetadataIsRefusedPerPartition() {
        String member = fixture.stableGroup(1).get(0);
        String tooLong = "x".repeat(GroupCoordinatorConfig.defaults().offsetMetadataMaxChars() + 1);

        OffsetCommitResult result = commit(member, 1, Map.of(ORDERS_0, offset(1, tooLong), ORDERS_1, offset(2, "")));

        assertThat(result.partitions())
                .containsOnly(
                        Map.entry(ORDERS_0, GroupError.OFFSET_METADATA_TOO_LARGE),
                        Map.entry(ORDERS_1, GroupError.NONE));
        assertThat(coordinator.committedOffsets(GROUP)).containsOnlyKeys(ORDERS_1);
    }

    @Test
    void groupsWithMembersCannotBeDeletedEmptyOnesLoseTheirOffsets() {
        List<String> members = fixture.stableGroup(1);
        commit(members.get(0), 1, Map.of(ORDERS_0, offset(1, "")));

        assertThat(coordinator.deleteGroup(GROUP)).isEqualTo(GroupError.NON_EMPTY_GROUP);

        coordinator
                .leave(new LeaveRequest(GROUP, List.of(new LeaveRequest.Leaving(members.get(0), null, null))))
                .join();
        assertThat(coordinator.deleteGroup(GROUP)).isEqualTo(GroupError.NONE);

        assertThat(coordinator.committedOffsets(GROUP)).isEmpty();
        assertThat(coordinator.describeGroup(GROUP).state()).isEqualTo(GroupState.DEAD);
        assertThat(coordinator.deleteGroup(GROUP)).isEqualTo(GroupError.GROUP_ID_NOT_FOUND);
        assertThat(coordinator.deleteGroup("")).isEqualTo(GroupError.INVALID_GROUP_ID);
    }

    @Test
    void groupsKnownOnlyByStoredOffsetsCanBeDeleted() {
        coordinator.commitOffsets(new OffsetCommitRequest("simple", "", null, -1, Map.of(ORDERS_0, offset(5, ""))));

        assertThat(coordinator.deleteGroup("simple")).isEqualTo(GroupError.NONE);
        assertThat(coordinator.listGroups()).isEmpty();
    }

    @Test
    void listingAndDescribingShowMembersStatesAndAssignments() {
        List<String> members = fixture.stableGroup(2);
        coordinator.commitOffsets(new OffsetCommitRequest("simple", "", null, -1, Map.of(ORDERS_0, offset(5, ""))));

        assertThat(coordinator.listGroups())
                .containsExactly(
                        new GroupListing(GROUP, "consumer", GroupState.STABLE),
                        new GroupListing("simple", "", GroupState.EMPTY));
        GroupDescription described = coordinator.describeGroup(GROUP);
        assertThat(described.state()).isEqualTo(GroupState.STABLE);
        assertThat(described.protocolName()).isEqualTo("range");
        assertThat(described.members()).extracting(MemberDescription::memberId).containsExactlyElementsOf(members);
        assertThat(described.members().get(1).assignment()).isEqualTo(bytes("assignment-of-" + members.get(1)));
        assertThat(described.members().get(1).metadata()).isEqualTo(bytes("range-metadata"));
        assertThat(described.members().get(1).clientHost()).isEqualTo("/127.0.0.1");
        assertThat(coordinator.describeGroup("missing")).isEqualTo(GroupDescription.dead("missing"));
    }

    @Test
    void offsetsOfTopicsTheGroupConsumesAreKeptOthersDeleted() {
        String member = fixture.stableGroup(1).get(0);
        commit(member, 1, Map.of(ORDERS_0, offset(1, ""), AUDIT_0, offset(2, "")));

        OffsetDeleteResult result =
                coordinator.deleteOffsets(GROUP, List.of(ORDERS_0, AUDIT_0), metadata -> Set.of("orders"));

        assertThat(result.partitions())
                .containsOnly(
                        Map.entry(ORDERS_0, GroupError.GROUP_SUBSCRIBED_TO_TOPIC), Map.entry(AUDIT_0, GroupError.NONE));
        assertThat(coordinator.committedOffsets(GROUP)).containsOnlyKeys(ORDERS_0);
        assertThat(coordinator
                        .deleteOffsets("missing", List.of(ORDERS_0), metadata -> Set.of())
                        .error())
                .isEqualTo(GroupError.GROUP_ID_NOT_FOUND);
        assertThat(coordinator
                        .deleteOffsets(GROUP, List.of(ORDERS_0), metadata -> {
                            throw new IllegalArgumentException(
                                    "not consumer protocol: " + new String(metadata, StandardCharsets.UTF_8));
                        })
                        .partitions())
                .containsOnly(Map.entry(ORDERS_0, GroupError.GROUP_SUBSCRIBED_TO_TOPIC));
    }

    @Test
    void offsetsOfIdleGroupsExpireAfterTheRetention() {
        fixture.close();
        fixture = new CoordinatorFixture(
                dir.resolve("retention"),
                GroupCoordinatorConfig.defaults().withOffsetsRetention(Duration.ofHours(1), Duration.ofMinutes(1)));
        coordinator = fixture.coordinator;
        String member = fixture.stableGroup(1).get(0);
        commit(member, 1, Map.of(ORDERS_0, offset(1, "")));
        coordinator.commitOffsets(new OffsetCommitRequest("simple", "", null, -1, Map.of(ORDERS_0, offset(5, ""))));

        passTimeHeartbeating(member, Duration.ofMinutes(59));
        assertThat(coordinator.expireOffsets()).isZero();
        passTimeHeartbeating(member, Duration.ofMinutes(2));

        assertThat(coordinator.expireOffsets()).isEqualTo(1);
        assertThat(coordinator.committedOffsets("simple")).isEmpty();
        assertThat(coordinator.committedOffsets(GROUP)).containsOnlyKeys(ORDERS_0);
        assertThat(fixture.meters.counter("floe.group.offsets.expired").count()).isEqualTo(1);
    }

    /** A group coordinated by another agent is not in this one's memory: it only looks idle here. */
    @Test
    void offsetsOfAGroupRoutedToAnotherAgentDoNotExpireHere() {
        fixture.close();
        fixture = new CoordinatorFixture(
                dir.resolve("elsewhere"),
                GroupCoordinatorConfig.defaults().withOffsetsRetention(Duration.ofHours(1), Duration.ofMinutes(1)),
                group -> !group.equals("elsewhere"));
        coordinator = fixture.coordinator;
        // Committed through the agent the group is routed to, into the shared store.
        fixture.store.commitOffsets(
                "elsewhere",
                Map.of(
                        ORDERS_0,
                        new CommittedOffset(5, -1, "", fixture.timers.clock().millis())));
        coordinator.commitOffsets(new OffsetCommitRequest("simple", "", null, -1, Map.of(ORDERS_0, offset(5, ""))));

        fixture.timers.advance(Duration.ofHours(2).toMillis());

        assertThat(coordinator.expireOffsets()).isEqualTo(1);
        assertThat(coordinator.committedOffsets("simple")).isEmpty();
        assertThat(fixture.store.committedOffsets("elsewhere")).containsOnlyKeys(ORDERS_0);
    }

    /** A group whose offsets another part of the agent owns (a change topic's progress) keeps them. */
    @Test
    void offsetsOfARetainedGroupNeverExpire() {
        fixture.close();
        fixture = new CoordinatorFixture(
                dir.resolve("retained"),
                GroupCoordinatorConfig.defaults().withOffsetsRetention(Duration.ofHours(1), Duration.ofMinutes(1)));
        coordinator = fixture.coordinator;
        coordinator.retainOffsetsOf(group -> group.equals("progress"));
        coordinator.commitOffsets(new OffsetCommitRequest("progress", "", null, -1, Map.of(ORDERS_0, offset(5, ""))));
        coordinator.commitOffsets(new OffsetCommitRequest("simple", "", null, -1, Map.of(ORDERS_0, offset(5, ""))));

        fixture.timers.advance(Duration.ofDays(30).toMillis());

        assertThat(coordinator.expireOffsets()).isEqualTo(1);
        assertThat(coordinator.committedOffsets("simple")).isEmpty();
        assertThat(coordinator.committedOffsets("progress")).containsOnlyKeys(ORDERS_0);
    }

    @Test
    void emptyGroupsWithoutOffsetsLeaveMemoryOnTheSweep() {
        List<String> members = fixture.stableGroup(1);
        coordinator
                .leave(new LeaveRequest(GROUP, List.of(new LeaveRequest.Leaving(members.get(0), null, null))))
                .join();
        assertThat(coordinator.listGroups()).containsExactly(new GroupListing(GROUP, "consumer", GroupState.EMPTY));

        coordinator.expireOffsets();

        assertThat(coordinator.listGroups()).isEmpty();
    }

    @Test
    void deletingATopicForgetsItsOffsetsInEveryGroup() {
        coordinator.commitOffsets(
                new OffsetCommitRequest("a", "", null, -1, Map.of(ORDERS_0, offset(1, ""), AUDIT_0, offset(1, ""))));
        coordinator.commitOffsets(new OffsetCommitRequest("b", "", null, -1, Map.of(ORDERS_1, offset(1, ""))));

        coordinator.onTopicDeleted("orders");

        assertThat(coordinator.committedOffsets("a")).containsOnlyKeys(AUDIT_0);
        assertThat(coordinator.committedOffsets("b")).isEmpty();
    }

    @Test
    void metersCountGroupsByStateAndRebalances() {
        fixture.stableGroup(2);

        assertThat(fixture.meters
                        .get("floe.groups")
                        .tag("state", "Stable")
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(fixture.meters
                        .get("floe.groups")
                        .tag("state", "Empty")
                        .gauge()
                        .value())
                .isZero();
        assertThat(fixture.meters.counter("floe.group.rebalances").count()).isEqualTo(1);
    }

    private void passTimeHeartbeating(String member, Duration duration) {
        long stepMs = CoordinatorFixture.SESSION_TIMEOUT_MS / 2;
        for (long passed = 0; passed < duration.toMillis(); passed += stepMs) {
            assertThat(fixture.heartbeat(member, 1)).isEqualTo(GroupError.NONE);
            fixture.timers.advance(stepMs);
        }
    }

    private OffsetCommitResult commit(
            String memberId, int generation, Map<TopicPartition, OffsetCommitRequest.NewOffset> offsets) {
        return coordinator.commitOffsets(new OffsetCommitRequest(GROUP, memberId, null, generation, offsets));
    }

    private static OffsetCommitRequest.NewOffset offset(long offset, String metadata) {
        return new OffsetCommitRequest.NewOffset(offset, 3, metadata);
    }
}
