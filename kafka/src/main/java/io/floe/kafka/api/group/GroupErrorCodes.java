package io.floe.kafka.api.group;

import io.floe.agent.group.GroupError;
import org.apache.kafka.common.protocol.Errors;

/** The wire error for each of the coordinator's outcomes; they share Kafka's names and meanings. */
final class GroupErrorCodes {

    private GroupErrorCodes() {}

    static Errors of(GroupError error) {
        return switch (error) {
            case NONE -> Errors.NONE;
            case INVALID_GROUP_ID -> Errors.INVALID_GROUP_ID;
            case UNKNOWN_MEMBER_ID -> Errors.UNKNOWN_MEMBER_ID;
            case MEMBER_ID_REQUIRED -> Errors.MEMBER_ID_REQUIRED;
            case ILLEGAL_GENERATION -> Errors.ILLEGAL_GENERATION;
            case REBALANCE_IN_PROGRESS -> Errors.REBALANCE_IN_PROGRESS;
            case COORDINATOR_NOT_AVAILABLE -> Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_COORDINATOR -> Errors.NOT_COORDINATOR;
            case COORDINATOR_LOAD_IN_PROGRESS -> Errors.COORDINATOR_LOAD_IN_PROGRESS;
            case FENCED_INSTANCE_ID -> Errors.FENCED_INSTANCE_ID;
            case INCONSISTENT_GROUP_PROTOCOL -> Errors.INCONSISTENT_GROUP_PROTOCOL;
            case INVALID_SESSION_TIMEOUT -> Errors.INVALID_SESSION_TIMEOUT;
            case GROUP_MAX_SIZE_REACHED -> Errors.GROUP_MAX_SIZE_REACHED;
            case GROUP_ID_NOT_FOUND -> Errors.GROUP_ID_NOT_FOUND;
            case NON_EMPTY_GROUP -> Errors.NON_EMPTY_GROUP;
            case OFFSET_METADATA_TOO_LARGE -> Errors.OFFSET_METADATA_TOO_LARGE;
            case GROUP_SUBSCRIBED_TO_TOPIC -> Errors.GROUP_SUBSCRIBED_TO_TOPIC;
            case FENCED_MEMBER_EPOCH -> Errors.FENCED_MEMBER_EPOCH;
            case STALE_MEMBER_EPOCH -> Errors.STALE_MEMBER_EPOCH;
            case UNRELEASED_INSTANCE_ID -> Errors.UNRELEASED_INSTANCE_ID;
            case UNSUPPORTED_ASSIGNOR -> Errors.UNSUPPORTED_ASSIGNOR;
            case INVALID_REGULAR_EXPRESSION -> Errors.INVALID_REGULAR_EXPRESSION;
            case INVALID_REQUEST -> Errors.INVALID_REQUEST;
        };
    }

    static short code(GroupError error) {
        return of(error).code();
    }
}
