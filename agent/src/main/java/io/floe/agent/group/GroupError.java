package io.floe.agent.group;

/**
 * Why the coordinator refused a request, with the meaning Kafka's error of the same name has. The
 * {@code kafka} module maps these to wire error codes.
 */
public enum GroupError {
    NONE,
    /** The group id is empty. */
    INVALID_GROUP_ID,
    /** The member (or the group) is not known: the client must rejoin without a member id. */
    UNKNOWN_MEMBER_ID,
    /** A first JoinGroup (v4+) got a member id assigned and must be sent again with it. */
    MEMBER_ID_REQUIRED,
    /** The request's generation is not the group's current one. */
    ILLEGAL_GENERATION,
    /** The group is rebalancing: the member must rejoin. */
    REBALANCE_IN_PROGRESS,
    /** The group is being deleted; the client should look the coordinator up again and retry. */
    COORDINATOR_NOT_AVAILABLE,
    /**
     * This agent does not hold the group's coordinator lease (another agent took the group, or the
     * lease ran out): the client looks the coordinator up again.
     */
    NOT_COORDINATOR,
    /**
     * The coordinator took the group over and waits until the earlier coordinator's members can no
     * longer own partitions before it starts a generation: the client retries.
     */
    COORDINATOR_LOAD_IN_PROGRESS,
    /** Another member id holds this group instance id now. */
    FENCED_INSTANCE_ID,
    /** The protocol type differs from the group's, or no protocol is supported by every member. */
    INCONSISTENT_GROUP_PROTOCOL,
    /** The session timeout is outside the coordinator's allowed range. */
    INVALID_SESSION_TIMEOUT,
    /** The group already has its maximum number of members. */
    GROUP_MAX_SIZE_REACHED,
    /** No such group, or not one of the protocol asked for. */
    GROUP_ID_NOT_FOUND,
    /** The group still has members. */
    NON_EMPTY_GROUP,
    /** A commit's metadata string is longer than allowed. */
    OFFSET_METADATA_TOO_LARGE,
    /** Offsets of a topic the active group consumes cannot be deleted. */
    GROUP_SUBSCRIBED_TO_TOPIC,
    /** A consumer-protocol member's epoch is not the one the group knows: it must give up its partitions and rejoin. */
    FENCED_MEMBER_EPOCH,
    /** An offset request carries a member epoch other than the member's current one; the client retries with it. */
    STALE_MEMBER_EPOCH,
    /** A static member joins with an instance id that another live member still holds. */
    UNRELEASED_INSTANCE_ID,
    /** The server-side assignor asked for is not configured. */
    UNSUPPORTED_ASSIGNOR,
    /** The subscription's regular expression does not compile. */
    INVALID_REGULAR_EXPRESSION,
    /** The request breaks the protocol's rules (a required field missing, an impossible epoch). */
    INVALID_REQUEST
}
