package io.floe.agent.group;

import io.floe.core.group.GroupMembership;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Between the groups in memory and the members recorded with their coordinator leases (DESIGN §8):
 * what is recorded of a group now ({@link #membership}), and a new term taking a group over from what
 * the earlier term recorded ({@link #takeOver}) — as Kafka's coordinator loads a group from its offsets
 * topic, except that the members' protocol metadata and assignments are not recorded, so a classic
 * group taken over rebalances once its members are back.
 */
final class GroupLoader {

    private final GroupRegistry groups;
    private final ConsumerGroups consumerGroups;
    private final Rebalance rebalance;
    private final Clock clock;

    GroupLoader(GroupRegistry groups, ConsumerGroups consumerGroups, Rebalance rebalance, Clock clock) {
        this.groups = groups;
        this.consumerGroups = consumerGroups;
        this.rebalance = rebalance;
        this.clock = clock;
    }

    /** The group's members in memory now, as they are recorded; {@link GroupMembership#EMPTY} when it has none. */
    GroupMembership membership(String groupId) {
        ConsumerGroups.Entry consumer = consumerGroups.find(groupId);
        if (consumer != null) {
            return consumerGroups.membership(consumer);
        }
        ClassicGroup group = groups.classic(groupId);
        return group == null ? GroupMembership.EMPTY : group.call(() -> membership(group));
    }

    /** Under the group's lock. */
    private static GroupMembership membership(ClassicGroup group) {
        if (group.isIn(GroupState.DEAD) || group.size() == 0) {
            return GroupMembership.EMPTY;
        }
        List<GroupMembership.Member> members = group.members().stream()
                .map(member -> new GroupMembership.Member(
                        member.memberId(),
                        member.groupInstanceId(),
                        member.clientId(),
                        member.clientHost(),
                        member.sessionTimeoutMs(),
                        member.rebalanceTimeoutMs()))
                .toList();
        return new GroupMembership(
                GroupMembership.Protocol.CLASSIC,
                group.generationId(),
                group.protocolType() == null ? "" : group.protocolType(),
                group.protocolName() == null ? "" : group.protocolName(),
                members);
    }

    /**
     * Takes the group over from what its earlier term recorded; returns the members the new term must
     * still wait for before any generation starts. A classic group of a generation comes back into
     * memory with its members, each on a fresh session, and rebalances at once: its members, told so at
     * their next heartbeat, rejoin with their member ids, and the generation forms when all of them have
     * rejoined, left or timed out (their commits of the recorded generation pass meanwhile, as in any
     * rebalance). A consumer-protocol group's members are returned: each is waited for until it rejoins
     * (epoch 0, having given its partitions up) or leaves.
     */
    Set<String> takeOver(String groupId, GroupMembership recorded) {
        if (recorded.members().isEmpty()) {
            return Set.of();
        }
        return switch (recorded.protocol()) {
            case CLASSIC -> {
                loadClassic(groupId, recorded);
                yield Set.of();
            }
            case CONSUMER ->
                recorded.members().stream()
                        .map(GroupMembership.Member::memberId)
                        .collect(Collectors.toUnmodifiableSet());
        };
    }

    private void loadClassic(String groupId, GroupMembership recorded) {
        if (recorded.generationId() <= 0 || recorded.protocolName().isEmpty()) {
            return; // no generation formed yet: nobody owns partitions
        }
        ClassicGroup group = groups.classicForJoin(groupId);
        if (group == null) {
            return;
        }
        group.run(() -> {
            if (!group.isIn(GroupState.EMPTY) || group.size() > 0) {
                return;
            }
            group.load(recorded, clock.millis());
            group.members()
                    .forEach(member -> rebalance.scheduleSessionTimeout(group, member, member.sessionTimeoutMs()));
            rebalance.prepare(
                    group,
                    "its coordinator moved here; the " + group.size() + " members of generation "
                            + recorded.generationId() + " rejoin");
        });
    }

    /**
     * Whether {@code recorded} covers a JoinGroup answer: the member is recorded in the answer's
     * generation, or a later generation is recorded (the answer is stale, and the member can own no
     * partitions by it).
     */
    static boolean covers(GroupMembership recorded, JoinResponse answer) {
        return recorded.protocol() == GroupMembership.Protocol.CLASSIC
                && (recorded.generationId() > answer.generationId()
                        || (recorded.generationId() == answer.generationId()
                                && recorded.member(answer.memberId()).isPresent()));
    }
}
