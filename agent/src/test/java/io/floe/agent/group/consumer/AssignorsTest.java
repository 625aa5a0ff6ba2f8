package io.floe.agent.group.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The uniform and range assignors: complete, disjoint, balanced, and (uniform) sticky. */
class AssignorsTest {

    private static final TopicMetadata ORDERS = new TopicMetadata(new UUID(0, 1), "orders", 6);
    private static final TopicMetadata PAYMENTS = new TopicMetadata(new UUID(0, 2), "payments", 3);
    private static final Map<UUID, TopicMetadata> TOPICS = Map.of(ORDERS.id(), ORDERS, PAYMENTS.id(), PAYMENTS);

    private final UniformAssignor uniform = new UniformAssignor();
    private final RangeAssignor range = new RangeAssignor();

    private static PartitionAssignor.MemberSpec subscribed(Assignment current, TopicMetadata... topics) {
        Set<UUID> ids = new HashSet<>();
        for (TopicMetadata topic : topics) {
            ids.add(topic.id());
        }
        return new PartitionAssignor.MemberSpec(ids, current);
    }

    @Test
    void uniformSpreadsEqualSubscriptionsEvenly() {
        Map<String, PartitionAssignor.MemberSpec> members = new HashMap<>();
        for (String member : List.of("a", "b", "c", "d")) {
            members.put(member, subscribed(Assignment.EMPTY, ORDERS, PAYMENTS));
        }

        Map<String, Assignment> assigned = uniform.assign(members, TOPICS);

        assertCompleteAndDisjoint(assigned, 9);
        assertThat(assigned.values()).extracting(Assignment::size).allMatch(size -> size == 2 || size == 3);
    }

    @Test
    void uniformKeepsPartitionsWhereTheyWereAndMovesOnlyTheExcess() {
        Map<String, PartitionAssignor.MemberSpec> members = new HashMap<>();
        members.put("a", subscribed(Assignment.of(ORDERS.id(), 0, 1, 2), ORDERS));
        members.put("b", subscribed(Assignment.of(ORDERS.id(), 3, 4, 5), ORDERS));
        members.put("c", subscribed(Assignment.EMPTY, ORDERS));

        Map<String, Assignment> assigned = uniform.assign(members, Map.of(ORDERS.id(), ORDERS));

        assertCompleteAndDisjoint(assigned, 6);
        assertThat(assigned.values()).extracting(Assignment::size).containsOnly(2);
        assertThat(Assignment.of(ORDERS.id(), 0, 1, 2).partitionsOf(ORDERS.id()))
                .containsAll(assigned.get("a").partitionsOf(ORDERS.id()));
        assertThat(Assignment.of(ORDERS.id(), 3, 4, 5).partitionsOf(ORDERS.id()))
                .containsAll(assigned.get("b").partitionsOf(ORDERS.id()));
    }

    @Test
    void uniformGivesEachTopicOnlyToItsSubscribers() {
        Map<String, PartitionAssignor.MemberSpec> members = new HashMap<>();
        members.put("a", subscribed(Assignment.EMPTY, ORDERS));
        members.put("b", subscribed(Assignment.EMPTY, ORDERS, PAYMENTS));
        members.put("idle", subscribed(Assignment.EMPTY));

        Map<String, Assignment> assigned = uniform.assign(members, TOPICS);

        assertCompleteAndDisjoint(assigned, 9);
        assertThat(assigned.get("a").partitionsOf(PAYMENTS.id())).isEmpty();
        assertThat(assigned.get("idle")).isEqualTo(Assignment.EMPTY);
        assertThat(Math.abs(assigned.get("a").size() - assigned.get("b").size()))
                .isLessThanOrEqualTo(1);
    }

    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {1, 2, 3, 42, 1234})
    void uniformStaysCompleteDisjointAndBalancedAcrossRandomMembershipChanges(long seed) {
        Random random = new Random(seed);
        TopicMetadata big = new TopicMetadata(new UUID(0, 3), "big", 50);
        Map<String, Assignment> current = new HashMap<>();
        List<String> names = new ArrayList<>();
        for (int round = 0; round < 30; round++) {
            if (names.size() < 2 || (random.nextBoolean() && names.size() < 12)) {
                names.add("m" + round);
            } else {
                current.remove(names.remove(random.nextInt(names.size())));
            }
            Map<String, PartitionAssignor.MemberSpec> members = new HashMap<>();
            names.forEach(name -> members.put(name, subscribed(current.getOrDefault(name, Assignment.EMPTY), big)));

            Map<String, Assignment> assigned = uniform.assign(members, Map.of(big.id(), big));

            assertCompleteAndDisjoint(assigned, 50);
            int min =
                    assigned.values().stream().mapToInt(Assignment::size).min().orElseThrow();
            int max =
                    assigned.values().stream().mapToInt(Assignment::size).max().orElseThrow();
            assertThat(max - min).as("round %d", round).isLessThanOrEqualTo(1);
            current.clear();
            current.putAll(assigned);
        }
    }

    @Test
    void rangeGivesContiguousRangesInMemberIdOrder() {
        Map<String, PartitionAssignor.MemberSpec> members = new HashMap<>();
        members.put("b", subscribed(Assignment.EMPTY, ORDERS, PAYMENTS));
        members.put("a", subscribed(Assignment.EMPTY, ORDERS, PAYMENTS));
        members.put("c", subscribed(Assignment.EMPTY, ORDERS));

        Map<String, Assignment> assigned = range.assign(members, TOPICS);

        assertCompleteAndDisjoint(assigned, 9);
        assertThat(assigned.get("a").partitionsOf(ORDERS.id())).containsExactly(0, 1);
        assertThat(assigned.get("b").partitionsOf(ORDERS.id())).containsExactly(2, 3);
        assertThat(assigned.get("c").partitionsOf(ORDERS.id())).containsExactly(4, 5);
        assertThat(assigned.get("a").partitionsOf(PAYMENTS.id())).containsExactly(0, 1);
        assertThat(assigned.get("b").partitionsOf(PAYMENTS.id())).containsExactly(2);
        assertThat(assigned.get("c").partitionsOf(PAYMENTS.id())).isEmpty();
    }

    private static void assertCompleteAndDisjoint(Map<String, Assignment> assigned, int partitions) {
        Set<String> seen = new HashSet<>();
        int total = 0;
        for (Assignment assignment : assigned.values()) {
            for (Map.Entry<UUID, Set<Integer>> topic : assignment.partitions().entrySet()) {
                for (int partition : topic.getValue()) {
                    assertThat(seen.add(topic.getKey() + "-" + partition))
                            .as("assigned twice")
                            .isTrue();
                    total++;
                }
            }
        }
        assertThat(total).isEqualTo(partitions);
    }
}
