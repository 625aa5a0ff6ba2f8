package io.floe.agent.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.agent.group.consumer.Assignment;
import io.floe.agent.group.consumer.TopicMetadata;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Consumer-protocol members on virtual time against a coordinator on a real SQLite store, with a
 * topic catalog the test changes at will. Each {@link Member} behaves as a well-mannered client:
 * it owns what the last assignment it got says (revoking the rest at once) and reports that in its
 * next heartbeat. {@link #assertNoPartitionOwnedTwice} checks the protocol's main promise from the
 * clients' side.
 */
final class ConsumerFixture implements AutoCloseable {

    static final String GROUP = "orders-app";
    static final UUID ORDERS_ID = new UUID(0, 1);
    static final int REBALANCE_TIMEOUT_MS = 30_000;

    final CoordinatorFixture coordinatorFixture;
    final GroupCoordinator coordinator;
    final ManualTimers timers;
    final Catalog topics = new Catalog();
    final List<Member> members = new ArrayList<>();
    private int nextMember;

    ConsumerFixture(Path dir) {
        this(dir, GroupCoordinatorConfig.defaults());
    }

    ConsumerFixture(Path dir, GroupCoordinatorConfig config) {
        this.coordinatorFixture = new CoordinatorFixture(dir, config);
        this.coordinator = coordinatorFixture.coordinator;
        this.timers = coordinatorFixture.timers;
        topics.put(new TopicMetadata(ORDERS_ID, "orders", 6));
    }

    /** A member that has not joined yet, subscribed to orders. */
    Member member() {
        Member member = new Member("member-" + (++nextMember), null, List.of("orders"), null);
        members.add(member);
        return member;
    }

    Member staticMember(String instanceId) {
        Member member = new Member("member-" + (++nextMember), instanceId, List.of("orders"), null);
        members.add(member);
        return member;
    }

    /** A join request of {@code memberId} with every field a client sends when it joins. */
    static ConsumerHeartbeat joinRequest(
            String memberId, String instanceId, List<String> topics, String regex, String assignor) {
        return new ConsumerHeartbeat(
                GROUP,
                memberId,
                0,
                instanceId,
                null,
                REBALANCE_TIMEOUT_MS,
                topics,
                regex,
                assignor,
                Assignment.EMPTY,
                "client",
                "/127.0.0.1",
                true);
    }

    ConsumerHeartbeatResult send(ConsumerHeartbeat request) {
        return coordinator.consumerHeartbeat(request, topics);
    }

    /** Heartbeats every joined member until none has anything left to change (at most 20 rounds). */
    void settle() {
        for (int round = 0; round < 20; round++) {
            boolean changed = false;
            for (Member member : List.copyOf(members)) {
                if (member.joined()) {
                    changed |= member.heartbeat().assignment() != null;
                    assertNoPartitionOwnedTwice();
                }
            }
            if (!changed) {
                return;
            }
        }
    }

    /** Lets virtual time pass in heartbeat-sized steps, every joined member heartbeating. */
    void passTime(long ms) {
        long step = coordinator.config().consumerGroups().heartbeatInterval().toMillis();
        for (long passed = 0; passed < ms; passed += step) {
            timers.advance(step);
            for (Member member : List.copyOf(members)) {
                if (member.joined() && !member.silent) {
                    member.heartbeat();
                }
            }
            assertNoPartitionOwnedTwice();
        }
    }

    void assertNoPartitionOwnedTwice() {
        Set<String> seen = new HashSet<>();
        for (Member member : members) {
            member.owned
                    .partitions()
                    .forEach((topic, partitions) ->
                            partitions.forEach(partition -> assertThat(seen.add(topic + "-" + partition))
                                    .as("%s-%d owned twice (by %s too)", topic, partition, member.memberId)
                                    .isTrue()));
        }
    }

    @Override
    public void close() {
        coordinatorFixture.close();
    }

    /** A client of the consumer protocol. */
    final class Member {

        final String memberId;
        final String instanceId;
        List<String> topicNames;
        String regex;
        int epoch = -1;
        Assignment owned = Assignment.EMPTY;
        /** A crashed member sends nothing more. */
        boolean silent;

        ConsumerHeartbeatResult last;

        Member(String memberId, String instanceId, List<String> topicNames, String regex) {
            this.memberId = memberId;
            this.instanceId = instanceId;
            this.topicNames = topicNames;
            this.regex = regex;
        }

        boolean joined() {
            return epoch > 0;
        }

        ConsumerHeartbeatResult join() {
            return join(null);
        }

        ConsumerHeartbeatResult join(String assignor) {
            owned = Assignment.EMPTY;
            return apply(send(joinRequest(memberId, instanceId, topicNames, regex, assignor)));
        }

        /** A regular heartbeat reporting what it owns. */
        ConsumerHeartbeatResult heartbeat() {
            return apply(send(new ConsumerHeartbeat(
                    GROUP,
                    memberId,
                    epoch,
                    instanceId,
                    null,
                    -1,
                    null,
                    null,
                    null,
                    owned,
                    "client",
                    "/127.0.0.1",
                    true)));
        }

        ConsumerHeartbeatResult leave() {
            ConsumerHeartbeatResult result = send(new ConsumerHeartbeat(
                    GROUP,
                    memberId,
                    instanceId == null ? -1 : -2,
                    instanceId,
                    null,
                    -1,
                    null,
                    null,
                    null,
                    null,
                    "client",
                    "/127.0.0.1",
                    true));
            owned = Assignment.EMPTY;
            epoch = -1;
            members.remove(this);
            return result;
        }

        /** Stops heartbeating, as a crashed process does; it owns nothing from now on. */
        void crash() {
            silent = true;
            owned = Assignment.EMPTY;
        }

        private ConsumerHeartbeatResult apply(ConsumerHeartbeatResult result) {
            last = result;
            if (result.error() == GroupError.NONE) {
                epoch = result.memberEpoch();
                if (result.assignment() != null) {
                    owned = result.assignment();
                }
            } else if (result.error() == GroupError.FENCED_MEMBER_EPOCH
                    || result.error() == GroupError.UNKNOWN_MEMBER_ID) {
                owned = Assignment.EMPTY;
                epoch = 0;
            }
            return result;
        }

        Set<Integer> orders() {
            return owned.partitionsOf(ORDERS_ID);
        }
    }

    /** Topics the test creates and grows. */
    static final class Catalog implements TopicCatalog {

        private final Map<String, TopicMetadata> topics = new TreeMap<>();
        int namesRead;

        void put(TopicMetadata topic) {
            topics.put(topic.name(), topic);
        }

        @Override
        public Optional<TopicMetadata> find(String name) {
            return Optional.ofNullable(topics.get(name));
        }

        @Override
        public List<String> names() {
            namesRead++;
            return List.copyOf(topics.keySet());
        }
    }
}
