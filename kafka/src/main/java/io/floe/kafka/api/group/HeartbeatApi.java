package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.HeartbeatRequest;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * Heartbeat (v0-4; v3 adds the instance id). Memory only, answered on the event loop, unless the
 * coordinator must take the group's lease first (off the event loop).
 */
final class HeartbeatApi implements KafkaApi<HeartbeatRequestData, HeartbeatResponseData> {

    private static final short STATIC_MEMBERSHIP_VERSION = 3;

    private final GroupCoordinator groups;

    HeartbeatApi(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletionStage<HeartbeatResponseData> handle(RequestContext context, HeartbeatRequestData request) {
        String instanceId = context.apiVersion() >= STATIC_MEMBERSHIP_VERSION ? request.groupInstanceId() : null;
        return groups.heartbeat(
                        new HeartbeatRequest(request.groupId(), request.memberId(), instanceId, request.generationId()))
                .thenApply(error ->
                        new HeartbeatResponseData().setThrottleTimeMs(0).setErrorCode(GroupErrorCodes.code(error)));
    }

    @Override
    public Map<Errors, Integer> errorCounts(HeartbeatResponseData response) {
        return Map.of(Errors.forCode(response.errorCode()), 1);
    }
}
