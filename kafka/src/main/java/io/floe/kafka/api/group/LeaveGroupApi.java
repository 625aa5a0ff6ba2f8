package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.LeaveRequest;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.LeaveGroupResponse;

/**
 * LeaveGroup (v0-5): one member up to v2, a batch from v3 (static members may be named by instance
 * id alone), a reason from v5. Before v3 the one member's error is the response's error. Memory only.
 */
final class LeaveGroupApi implements KafkaApi<LeaveGroupRequestData, LeaveGroupResponseData> {

    private static final short BATCHED_VERSION = 3;

    private final GroupCoordinator groups;

    LeaveGroupApi(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletionStage<LeaveGroupResponseData> handle(RequestContext context, LeaveGroupRequestData request) {
        short version = context.apiVersion();
        List<LeaveRequest.Leaving> leaving = version < BATCHED_VERSION
                ? List.of(new LeaveRequest.Leaving(request.memberId(), null, null))
                : request.members().stream()
                        .map(m -> new LeaveRequest.Leaving(m.memberId(), m.groupInstanceId(), m.reason()))
                        .toList();
        return groups.leave(new LeaveRequest(request.groupId(), leaving)).thenApply(response -> {
            List<MemberResponse> members = response.members().stream()
                    .map(m -> new MemberResponse()
                            .setMemberId(m.memberId())
                            .setGroupInstanceId(m.groupInstanceId())
                            .setErrorCode(GroupErrorCodes.code(m.error())))
                    .toList();
            return new LeaveGroupResponse(members, GroupErrorCodes.of(response.error()), 0, version).data();
        });
    }

    @Override
    public Map<Errors, Integer> errorCounts(LeaveGroupResponseData response) {
        Map<Errors, Integer> counts = new HashMap<>();
        counts.put(Errors.forCode(response.errorCode()), 1);
        response.members().forEach(m -> counts.merge(Errors.forCode(m.errorCode()), 1, Integer::sum));
        return counts;
    }
}
