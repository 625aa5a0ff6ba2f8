package io.floe.core.group;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A consumer group's members as its coordinator recorded them with its lease (DESIGN §8, fencing of
 * coordinators): every member that may own partitions of the group. A coordinator records a member
 * before the member learns that it is in a generation (a JoinGroup answer, a consumer-protocol
 * heartbeat that assigns it an epoch), so the coordinator that takes the group over next knows whom
 * it must wait for, instead of waiting out every earlier member's session.
 *
 * @param protocol the group's protocol; {@link Protocol#CLASSIC} for a group without members
 * @param generationId the classic group's generation, or the consumer group's epoch
 * @param protocolType the classic group's protocol type ("consumer", "connect"), empty otherwise
 * @param protocolName the classic generation's selected protocol ("range"), empty otherwise
 * @param members sorted by member id
 */
public record GroupMembership(
        Protocol protocol, int generationId, String protocolType, String protocolName, List<Member> members) {

    /** A group without members. */
    public static final GroupMembership EMPTY = new GroupMembership(Protocol.CLASSIC, 0, "", "", List.of());

    /** The group protocol whose members these are. */
    public enum Protocol {
        /** Kafka's classic protocol: JoinGroup, SyncGroup, Heartbeat. */
        CLASSIC,
        /** The consumer protocol of KIP-848: ConsumerGroupHeartbeat. */
        CONSUMER
    }

    /**
     * One member.
     *
     * @param groupInstanceId the static member's instance id, or null
     */
    public record Member(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs) {

        public Member {
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientHost, "clientHost");
        }
    }

    public GroupMembership {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(protocolType, "protocolType");
        Objects.requireNonNull(protocolName, "protocolName");
        members =
                members.stream().sorted(Comparator.comparing(Member::memberId)).toList();
    }

    /** The member with this id, if recorded (a binary search: the members are sorted by id). */
    public Optional<Member> member(String memberId) {
        int low = 0;
        int high = members.size() - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            int order = members.get(middle).memberId().compareTo(memberId);
            if (order == 0) {
                return Optional.of(members.get(middle));
            } else if (order < 0) {
                low = middle + 1;
            } else {
                high = middle - 1;
            }
        }
        return Optional.empty();
    }

    /** The longest session timeout of the members, zero without members. */
    public long longestSessionMs() {
        return members.stream().mapToLong(Member::sessionTimeoutMs).max().orElse(0);
    }
}
