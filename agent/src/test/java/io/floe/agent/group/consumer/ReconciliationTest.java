package io.floe.agent.group.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** One member's steps towards its target: revoke first, take only what nobody else owns. */
class ReconciliationTest {

    private static final UUID TOPIC = new UUID(0, 1);

    private final Map<Integer, String> owners = new HashMap<>();

    private static ConsumerMember stable(String memberId, int epoch, Integer... partitions) {
        return new ConsumerMember(
                memberId,
                MemberSubscription.NONE,
                epoch,
                epoch - 1,
                MemberState.STABLE,
                Assignment.of(TOPIC, partitions),
                Assignment.EMPTY);
    }

    private ConsumerMember next(ConsumerMember member, int targetEpoch, Assignment target, Assignment owned) {
        return Reconciliation.next(member, targetEpoch, target, (topic, partition) -> owners.get(partition), owned);
    }

    @Test
    void aMemberAtItsTargetStaysAsItIs() {
        ConsumerMember member = stable("a", 3, 0, 1);

        assertThat(next(member, 3, Assignment.of(TOPIC, 0, 1), null)).isSameAs(member);
    }

    @Test
    void freePartitionsAreAssignedAtOnceAtTheTargetEpoch() {
        ConsumerMember member = stable("a", 1, 0);

        ConsumerMember next = next(member, 2, Assignment.of(TOPIC, 0, 1, 2), Assignment.of(TOPIC, 0));

        assertThat(next.state()).isEqualTo(MemberState.STABLE);
        assertThat(next.epoch()).isEqualTo(2);
        assertThat(next.previousEpoch()).isEqualTo(1);
        assertThat(next.assigned()).isEqualTo(Assignment.of(TOPIC, 0, 1, 2));
    }

    @Test
    void partitionsLeavingTheTargetAreRevokedFirstAtTheCurrentEpoch() {
        owners.put(2, "b");
        ConsumerMember member = stable("a", 1, 0, 1);

        ConsumerMember revoking = next(member, 2, Assignment.of(TOPIC, 0, 3), Assignment.of(TOPIC, 0, 1));

        assertThat(revoking.state()).isEqualTo(MemberState.UNREVOKED_PARTITIONS);
        assertThat(revoking.epoch()).isEqualTo(1);
        assertThat(revoking.assigned()).isEqualTo(Assignment.of(TOPIC, 0));
        assertThat(revoking.pendingRevocation()).isEqualTo(Assignment.of(TOPIC, 1));
        // Not even the free partition 3 comes before the revocation is confirmed.
        assertThat(next(revoking, 2, Assignment.of(TOPIC, 0, 3), Assignment.of(TOPIC, 0, 1)))
                .isSameAs(revoking);
        assertThat(next(revoking, 2, Assignment.of(TOPIC, 0, 3), null)).isSameAs(revoking);

        ConsumerMember done = next(revoking, 2, Assignment.of(TOPIC, 0, 3), Assignment.of(TOPIC, 0));
        assertThat(done.state()).isEqualTo(MemberState.STABLE);
        assertThat(done.epoch()).isEqualTo(2);
        assertThat(done.assigned()).isEqualTo(Assignment.of(TOPIC, 0, 3));
        assertThat(done.pendingRevocation()).isEqualTo(Assignment.EMPTY);
    }

    @Test
    void partitionsStillOwnedByAnotherMemberAreWaitedFor() {
        owners.put(1, "b");
        ConsumerMember member = stable("a", 1, 0);

        ConsumerMember waiting = next(member, 2, Assignment.of(TOPIC, 0, 1), Assignment.of(TOPIC, 0));

        assertThat(waiting.state()).isEqualTo(MemberState.UNRELEASED_PARTITIONS);
        assertThat(waiting.epoch()).isEqualTo(2);
        assertThat(waiting.assigned()).isEqualTo(Assignment.of(TOPIC, 0));

        owners.remove(1);
        ConsumerMember released = next(waiting, 2, Assignment.of(TOPIC, 0, 1), null);
        assertThat(released.state()).isEqualTo(MemberState.STABLE);
        assertThat(released.assigned()).isEqualTo(Assignment.of(TOPIC, 0, 1));
    }

    @Test
    void aMemberThatAlreadyGaveUpItsPartitionsSkipsTheRevocationStep() {
        ConsumerMember member = stable("a", 4, 0, 1);

        ConsumerMember next = next(member, 5, Assignment.of(TOPIC, 2), Assignment.EMPTY);

        assertThat(next.state()).isEqualTo(MemberState.STABLE);
        assertThat(next.epoch()).isEqualTo(5);
        assertThat(next.assigned()).isEqualTo(Assignment.of(TOPIC, 2));
    }

    @Test
    void aPartitionTheMemberWasRevokingCanComeBackToItOnceRevoked() {
        owners.put(1, "a"); // still indexed as the member's own pending revocation
        ConsumerMember revoking = new ConsumerMember(
                "a",
                MemberSubscription.NONE,
                3,
                2,
                MemberState.UNREVOKED_PARTITIONS,
                Assignment.of(TOPIC, 0),
                Assignment.of(TOPIC, 1));

        ConsumerMember next = next(revoking, 4, Assignment.of(TOPIC, 0, 1), Assignment.of(TOPIC, 0));

        assertThat(next.state()).isEqualTo(MemberState.STABLE);
        assertThat(next.assigned().partitionsOf(TOPIC)).isEqualTo(Set.of(0, 1));
    }
}
