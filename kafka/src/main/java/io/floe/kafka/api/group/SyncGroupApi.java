package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.SyncRequest;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * SyncGroup (v0-5): the leader hands in the assignment, every member gets its own. v3 adds the
 * instance id, v5 the protocol type and name (checked against the group's). Memory only.
 */
final class SyncGroupApi implements KafkaApi<SyncGroupRequestData, SyncGroupResponseData> {

    private static final short STATIC_MEMBERSHIP_VERSION = 3;

    private final GroupCoordinator groups;

    SyncGroupApi(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletionStage<SyncGroupResponseData> handle(RequestContext context, SyncGroupRequestData request) {
        short version = context.apiVersion();
        Map<String, byte[]> assignments = new HashMap<>();
        request.assignments().forEach(assignment -> assignments.put(assignment.memberId(), assignment.assignment()));
        SyncRequest sync = new SyncRequest(
                request.groupId(),
                request.memberId(),
                version >= STATIC_MEMBERSHIP_VERSION ? request.groupInstanceId() : null,
                request.generationId(),
                request.protocolType(),
                request.protocolName(),
                assignments);
        return groups.sync(sync)
                .thenApply(response -> new SyncGroupResponseData()
                        .setThrottleTimeMs(0)
                        .setErrorCode(GroupErrorCodes.code(response.error()))
                        .setProtocolType(response.protocolType())
                        .setProtocolName(response.protocolName())
                        .setAssignment(response.assignment()));
    }

    @Override
    public Map<Errors, Integer> errorCounts(SyncGroupResponseData response) {
        return Map.of(Errors.forCode(response.errorCode()), 1);
    }
}
