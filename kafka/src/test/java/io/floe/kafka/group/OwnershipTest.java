package io.floe.kafka.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The check ConsumerProtocolGroupTest runs on what the consumers' rebalance listeners saw. */
class OwnershipTest {

    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    private static Ownership owned(TopicPartition partition, String owner, long from, long to, Ownership.End end) {
        return new Ownership(partition, owner, from * 1_000_000, to * 1_000_000, end);
    }

    @Test
    void aHandoverAfterTheRevocationIsNoOverlap() {
        assertThat(Ownership.overlaps(List.of(
                        owned(P0, "a", 0, 10, Ownership.End.REVOKED),
                        owned(P0, "b", 11, 20, Ownership.End.CLOSED),
                        owned(P1, "a", 0, 20, Ownership.End.CLOSED),
                        owned(P0, "a", 21, 30, Ownership.End.REVOKED))))
                .isEmpty();
    }

    @Test
    void aPartitionGivenBeforeItsOwnerRevokedItIsAnOverlap() {
        assertThat(Ownership.overlaps(List.of(
                        owned(P0, "a", 0, 10, Ownership.End.REVOKED),
                        owned(P0, "b", 5, 20, Ownership.End.REVOKED),
                        owned(P1, "c", 0, 20, Ownership.End.CLOSED),
                        owned(P1, "b", 19, 30, Ownership.End.CLOSED))))
                .containsExactly(
                        "orders-0 given to b [5.0 ms, 20.0 ms revoked] while still owned by a [0.0 ms, 10.0 ms revoked]",
                        "orders-1 given to b [19.0 ms, 30.0 ms closed] while still owned by c [0.0 ms, 20.0 ms closed]");
    }

    @Test
    void aFencedMembersPartitionsMayMoveBeforeItLearnsItLostThem() {
        assertThat(Ownership.overlaps(List.of(
                        owned(P0, "fenced", 0, 10, Ownership.End.LOST), owned(P0, "b", 5, 20, Ownership.End.REVOKED))))
                .isEmpty();
        // but a fenced member cannot have been given what another still owned
        assertThat(Ownership.overlaps(List.of(
                        owned(P0, "b", 0, 20, Ownership.End.REVOKED), owned(P0, "fenced", 5, 10, Ownership.End.LOST))))
                .hasSize(1);
    }
}
