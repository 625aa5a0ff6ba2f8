package io.floe.agent.group;

import static io.floe.agent.group.CoordinatorFixture.GROUP;
import static io.floe.agent.group.CoordinatorFixture.INITIAL_DELAY_MS;
import static io.floe.agent.group.CoordinatorFixture.REBALANCE_TIMEOUT_MS;
import static io.floe.agent.group.CoordinatorFixture.SESSION_TIMEOUT_MS;
import static io.floe.agent.group.CoordinatorFixture.bytes;
import static io.floe.agent.group.CoordinatorFixture.joinRequest;
import static io.floe.agent.group.CoordinatorFixture.protocols;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The classic group state machine on virtual time: joins, syncs, heartbeats, leaves and timeouts. */
class GroupMembershipTest {

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
    void aFirstJoinGetsAMemberIdAndTheGroupStabilizesAfterTheInitialDelay() {
        JoinResponse first = fixture.join("").join();

        assertThat(first.error()).isEqualTo(GroupError.MEMBER_ID_REQUIRED);
        assertThat(first.memberId()).startsWith("client-");
        assertThat(fixture.state()).isEqualTo(GroupState.EMPTY);

        CompletableFuture<JoinResponse> join = fixture.join(first.memberId());
        assertThat(fixture.state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        fixture.timers.advance(INITIAL_DELAY_MS - 1);
        assertThat(join).isNotDone();
        fixture.timers.advance(1);

        JoinResponse joined = join.join();
        assertThat(joined.error()).isEqualTo(GroupError.NONE);
        assertThat(joined.generationId()).isEqualTo(1);
        assertThat(joined.leaderId()).isEqualTo(first.memberId());
        assertThat(joined.protocolType()).isEqualTo("consumer");
        assertThat(joined.protocolName()).isEqualTo("range");
        assertThat(joined.members()).singleElement().satisfies(member -> {
            assertThat(member.memberId()).isEqualTo(first.memberId());
            assertThat(member.metadata()).isEqualTo(bytes("range-metadata"));
        });
        assertThat(fixture.state()).isEqualTo(GroupState.COMPLETING_REBALANCE);
    }

    @Test
    void joinGroupBeforeV4JoinsAtOnceWithAGeneratedId() {
        JoinRequest v3 = new JoinRequest(
                GROUP,
                "",
                null,
                "old-client",
                "/127.0.0.1",
                SESSION_TIMEOUT_MS,
                REBALANCE_TIMEOUT_MS,
                "consumer",
                protocols("range"),
                false,
                false,
                null);

        CompletableFuture<JoinResponse> join = coordinator.join(v3);
        fixture.timers.advance(INITIAL_DELAY_MS);

        assertThat(join.join().error()).isEqualTo(GroupError.NONE);
        assertThat(join.join().memberId()).startsWith("old-client-");
    }

    @Test
    void membersJoiningDuringTheInitialDelayExtendItAndAllGetTheSameGeneration() {
        String leader = fixture.newMemberId();
        CompletableFuture<JoinResponse> leaderJoin = fixture.join(leader);
        fixture.timers.advance(INITIAL_DELAY_MS - 1);
        String follower = fixture.newMemberId();
        CompletableFuture<JoinResponse> followerJoin = fixture.join(follower);
        fixture.timers.advance(1);

        assertThat(leaderJoin).isNotDone();
        fixture.timers.advance(INITIAL_DELAY_MS);

        assertThat(leaderJoin.join().generationId()).isEqualTo(1);
        assertThat(followerJoin.join().generationId()).isEqualTo(1);
        assertThat(leaderJoin.join().members())
                .extracting(JoinedMember::memberId)
                .containsExactly(leader, follower);
        assertThat(followerJoin.join().members()).isEmpty();
        assertThat(followerJoin.join().leaderId()).isEqualTo(leader);
    }

    @Test
    void theProtocolEveryMemberSupportsWinsByTheMembersPreferences() {
        List<CompletableFuture<JoinResponse>> joins = new ArrayList<>();
        for (List<Protocol> protocols : List.of(
                protocols("sticky", "range", "roundrobin"),
                protocols("range", "sticky"),
                protocols("range", "sticky"))) {
            String memberId =
                    coordinator.join(joinRequest("", null, protocols)).join().memberId();
            joins.add(coordinator.join(joinRequest(memberId, null, protocols)));
        }
        fixture.timers.advance(3 * INITIAL_DELAY_MS);

        assertThat(joins)
                .allSatisfy(join -> assertThat(join.join().protocolName()).isEqualTo("range"));
        assertThat(joins.get(0).join().members())
                .allSatisfy(member -> assertThat(member.metadata()).isEqualTo(bytes("range-metadata")));
    }

    @Test
    void joinsWithAnotherProtocolTypeOrNoCommonProtocolAreInconsistent() {
        fixture.stableGroup(1);

        JoinRequest otherType = new JoinRequest(
                GROUP,
                "",
                null,
                "c",
                "/h",
                SESSION_TIMEOUT_MS,
                REBALANCE_TIMEOUT_MS,
                "connect",
                protocols("range"),
                true,
                true,
                null);
        assertThat(coordinator.join(otherType).join().error()).isEqualTo(GroupError.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(coordinator
                        .join(joinRequest("", null, protocols("roundrobin")))
                        .join()
                        .error())
                .isEqualTo(GroupError.INCONSISTENT_GROUP_PROTOCOL);
    }

    @Test
    void joinsAreValidated() {
        JoinRequest noGroup = new JoinRequest(
                "",
                "",
                null,
                "c",
                "/h",
                SESSION_TIMEOUT_MS,
                REBALANCE_TIMEOUT_MS,
                "consumer",
                protocols("range"),
                true,
                true,
                null);
        JoinRequest shortSession = new JoinRequest(
                GROUP,
                "",
                null,
                "c",
                "/h",
                100,
                REBALANCE_TIMEOUT_MS,
                "consumer",
                protocols("range"),
                true,
                true,
                null);

        assertThat(coordinator.join(noGroup).join().error()).isEqualTo(GroupError.INVALID_GROUP_ID);
        assertThat(coordinator.join(shortSession).join().error()).isEqualTo(GroupError.INVALID_SESSION_TIMEOUT);
        assertThat(fixture.join("unknown-member").join().error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }

    @Test
    void followersWaitForTheLeadersAssignment() {
        String leader = fixture.newMemberId();
        CompletableFuture<JoinResponse> leaderJoin = fixture.join(leader);
        String follower = fixture.newMemberId();
        fixture.join(follower);
        fixture.timers.advance(2 * INITIAL_DELAY_MS);
        int generation = leaderJoin.join().generationId();

        CompletableFuture<SyncResponse> followerSync = fixture.sync(follower, generation, Map.of());
        assertThat(followerSync).isNotDone();
        SyncResponse leaderSync = fixture.sync(leader, generation, Map.of(leader, bytes("p0"), follower, bytes("p1")))
                .join();

        assertThat(leaderSync.assignment()).isEqualTo(bytes("p0"));
        assertThat(followerSync.join().assignment()).isEqualTo(bytes("p1"));
        assertThat(followerSync.join().protocolName()).isEqualTo("range");
        assertThat(fixture.state()).isEqualTo(GroupState.STABLE);
        assertThat(fixture.sync(follower, generation, Map.of()).join().assignment())
                .isEqualTo(bytes("p1"));
        assertThat(fixture.sync(follower, generation + 1, Map.of()).join().error())
                .isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(fixture.sync("nobody", generation, Map.of()).join().error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }

    @Test
    void heartbeatsAreFencedByMemberAndGenerationAndSignalRebalances() {
        List<String> members = fixture.stableGroup(1);
        String member = members.get(0);

        assertThat(fixture.heartbeat(member, 1)).isEqualTo(GroupError.NONE);
        assertThat(fixture.heartbeat(member, 0)).isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(fixture.heartbeat("nobody", 1)).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(coordinator
                        .heartbeat(new HeartbeatRequest("other-group", member, null, 1))
                        .join())
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);

        CompletableFuture<JoinResponse> newcomer = fixture.join(fixture.newMemberId());
        assertThat(fixture.state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(fixture.heartbeat(member, 1)).isEqualTo(GroupError.REBALANCE_IN_PROGRESS);

        CompletableFuture<JoinResponse> rejoin = fixture.join(member);
        assertThat(rejoin.join().generationId()).isEqualTo(2);
        assertThat(newcomer.join().generationId()).isEqualTo(2);
        assertThat(fixture.heartbeat(member, 2)).isEqualTo(GroupError.NONE);
    }

    @Test
    void membersThatDoNotRejoinWithinTheRebalanceTimeoutAreRemoved() {
        List<String> members = fixture.stableGroup(2);
        fixture.timers.advance(SESSION_TIMEOUT_MS / 2);
        fixture.heartbeat(members.get(1), 1);

        CompletableFuture<JoinResponse> rejoin = fixture.join(members.get(0));
        for (int elapsed = 0; elapsed < REBALANCE_TIMEOUT_MS; elapsed += SESSION_TIMEOUT_MS / 2) {
            // The lagging member keeps heartbeating but never rejoins.
            assertThat(fixture.heartbeat(members.get(1), 1)).isEqualTo(GroupError.REBALANCE_IN_PROGRESS);
            assertThat(rejoin).isNotDone();
            fixture.timers.advance(SESSION_TIMEOUT_MS / 2);
        }

        assertThat(rejoin.join().generationId()).isEqualTo(2);
        assertThat(rejoin.join().members()).extracting(JoinedMember::memberId).containsExactly(members.get(0));
        assertThat(fixture.heartbeat(members.get(1), 1)).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aMemberWhoseSessionExpiresIsRemovedAndTheOthersRebalance() {
        List<String> members = fixture.stableGroup(2);
        String survivor = members.get(0);

        fixture.timers.advance(SESSION_TIMEOUT_MS / 2);
        assertThat(fixture.heartbeat(survivor, 1)).isEqualTo(GroupError.NONE);
        fixture.timers.advance(SESSION_TIMEOUT_MS / 2);

        assertThat(fixture.state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(fixture.heartbeat(survivor, 1)).isEqualTo(GroupError.REBALANCE_IN_PROGRESS);
        JoinResponse rejoined = fixture.join(survivor).join();
        assertThat(rejoined.generationId()).isEqualTo(2);
        assertThat(rejoined.members()).extracting(JoinedMember::memberId).containsExactly(survivor);
        assertThat(fixture.heartbeat(members.get(1), 1)).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }

    @Test
    void membersThatNeverSyncAreRemovedAfterTheRebalanceTimeout() {
        String leader = fixture.newMemberId();
        CompletableFuture<JoinResponse> leaderJoin = fixture.join(leader);
        String silent = fixture.newMemberId();
        fixture.join(silent);
        fixture.timers.advance(2 * INITIAL_DELAY_MS);
        fixture.sync(leader, 1, Map.of(leader, bytes("all")));

        for (int elapsed = 0; elapsed < REBALANCE_TIMEOUT_MS; elapsed += SESSION_TIMEOUT_MS / 2) {
            fixture.heartbeat(leader, 1);
            fixture.heartbeat(silent, 1);
            fixture.timers.advance(SESSION_TIMEOUT_MS / 2);
        }

        assertThat(leaderJoin.join().generationId()).isEqualTo(1);
        assertThat(fixture.heartbeat(silent, 1)).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(fixture.heartbeat(leader, 1)).isEqualTo(GroupError.REBALANCE_IN_PROGRESS);
    }

    @Test
    void membersLeaveInBatchesAndTheLastLeavingEmptiesTheGroup() {
        List<String> members = fixture.stableGroup(3);

        LeaveResponse first = coordinator
                .leave(new LeaveRequest(
                        GROUP,
                        List.of(
                                new LeaveRequest.Leaving(members.get(2), null, "shutdown"),
                                new LeaveRequest.Leaving("nobody", null, null))))
                .join();

        assertThat(first.members())
                .extracting(LeaveResponse.Left::error)
                .containsExactly(GroupError.NONE, GroupError.UNKNOWN_MEMBER_ID);
        assertThat(fixture.state()).isEqualTo(GroupState.PREPARING_REBALANCE);

        coordinator
                .leave(new LeaveRequest(
                        GROUP,
                        List.of(
                                new LeaveRequest.Leaving(members.get(0), null, null),
                                new LeaveRequest.Leaving(members.get(1), null, null))))
                .join();

        assertThat(fixture.state()).isEqualTo(GroupState.EMPTY);
        assertThat(coordinator.describeGroup(GROUP).members()).isEmpty();
        assertThat(coordinator
                        .leave(new LeaveRequest("unknown", List.of(new LeaveRequest.Leaving("m", null, null))))
                        .join()
                        .members())
                .extracting(LeaveResponse.Left::error)
                .containsExactly(GroupError.UNKNOWN_MEMBER_ID);
    }

    /**
     * Kafka Connect restarting a sink's tasks: their consumers join during the initial delay and leave
     * again before it ends, and the next consumers join the group, in its join phase with no members.
     */
    @Test
    void aMemberJoiningAJoinPhaseThatEveryoneLeftIsAccepted() {
        String first = fixture.newMemberId();
        CompletableFuture<JoinResponse> firstJoin = fixture.join(first);
        coordinator
                .leave(new LeaveRequest(GROUP, List.of(new LeaveRequest.Leaving(first, null, "closing"))))
                .join();
        assertThat(firstJoin.join().error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(fixture.state()).isEqualTo(GroupState.PREPARING_REBALANCE);

        String next = fixture.newMemberId();
        CompletableFuture<JoinResponse> nextJoin = fixture.join(next);
        fixture.timers.advance(3 * INITIAL_DELAY_MS);

        assertThat(nextJoin.join().error()).isEqualTo(GroupError.NONE);
        assertThat(nextJoin.join().leaderId()).isEqualTo(next);
        assertThat(nextJoin.join().protocolName()).isEqualTo("range");
    }

    @Test
    void aLeavingMemberDuringTheJoinPhaseLetsItComplete() {
        List<String> members = fixture.stableGroup(2);
        CompletableFuture<JoinResponse> rejoin = fixture.join(members.get(0));
        assertThat(rejoin).isNotDone();

        coordinator
                .leave(new LeaveRequest(GROUP, List.of(new LeaveRequest.Leaving(members.get(1), null, null))))
                .join();

        assertThat(rejoin.join().generationId()).isEqualTo(2);
    }

    @Test
    void aRestartedStaticMemberTakesItsPlaceWithoutARebalanceAndFencesItsOldId() {
        CompletableFuture<JoinResponse> join = coordinator.join(joinRequest("", "instance-a", protocols("range")));
        fixture.timers.advance(INITIAL_DELAY_MS);
        String oldId = join.join().memberId();
        assertThat(oldId).startsWith("instance-a-");
        fixture.sync(oldId, 1, Map.of(oldId, bytes("p0"))).join();
        coordinator
                .sync(new SyncRequest(GROUP, oldId, "instance-a", 1, null, null, Map.of()))
                .join();

        JoinResponse rejoined = coordinator
                .join(joinRequest("", "instance-a", protocols("range")))
                .join();

        assertThat(rejoined.error()).isEqualTo(GroupError.NONE);
        assertThat(rejoined.memberId()).isNotEqualTo(oldId);
        assertThat(rejoined.generationId()).isEqualTo(1);
        assertThat(rejoined.skipAssignment()).isTrue();
        assertThat(fixture.state()).isEqualTo(GroupState.STABLE);
        assertThat(coordinator
                        .heartbeat(new HeartbeatRequest(GROUP, oldId, "instance-a", 1))
                        .join())
                .isEqualTo(GroupError.FENCED_INSTANCE_ID);
        assertThat(coordinator
                        .heartbeat(new HeartbeatRequest(GROUP, rejoined.memberId(), "instance-a", 1))
                        .join())
                .isEqualTo(GroupError.NONE);
        SyncResponse sync = coordinator
                .sync(new SyncRequest(GROUP, rejoined.memberId(), "instance-a", 1, null, null, Map.of()))
                .join();
        assertThat(sync.assignment()).isEqualTo(bytes("p0"));
    }

    @Test
    void staticMembersAreKeptThroughAJoinPhaseTheyMissUntilTheirSessionExpires() {
        CompletableFuture<JoinResponse> staticJoin =
                coordinator.join(joinRequest("", "instance-a", protocols("range")));
        String dynamic = fixture.newMemberId();
        fixture.join(dynamic);
        fixture.timers.advance(2 * INITIAL_DELAY_MS);
        String staticId = staticJoin.join().memberId();
        fixture.sync(staticId, 1, Map.of());
        fixture.sync(dynamic, 1, Map.of());

        String newcomer = fixture.newMemberId();
        fixture.join(newcomer);
        CompletableFuture<JoinResponse> rejoin = fixture.join(dynamic);
        assertThat(fixture.heartbeat(staticId, 1)).isEqualTo(GroupError.REBALANCE_IN_PROGRESS);
        fixture.timers.advance(SESSION_TIMEOUT_MS - 1);

        assertThat(rejoin).isNotDone();
        fixture.timers.advance(1);
        assertThat(rejoin.join().leaderId()).isEqualTo(dynamic);
        assertThat(rejoin.join().members()).extracting(JoinedMember::memberId).containsExactly(dynamic, newcomer);
    }

    @Test
    void aLargerGroupThanAllowedIsRefused() {
        fixture.close();
        fixture = new CoordinatorFixture(
                dir.resolve("small"), GroupCoordinatorConfig.defaults().withMaxGroupSize(1));
        fixture.stableGroup(1);

        JoinResponse second = fixture.join("").join();

        assertThat(second.error()).isEqualTo(GroupError.GROUP_MAX_SIZE_REACHED);
    }

    @Test
    void closingAnswersWaitingJoins() {
        CompletableFuture<JoinResponse> join = fixture.join(fixture.newMemberId());

        coordinator.close();

        assertThat(join.join().error()).isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
        assertThat(fixture.timers.pending()).isZero();
    }
}
