package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.JoinRequest;
import io.floe.agent.group.JoinResponse;
import io.floe.agent.group.Protocol;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.protocol.Errors;

/**
 * JoinGroup (v0-9). From v4 a first join gets a member id and MEMBER_ID_REQUIRED; from v5 static
 * members send their instance id; v9 adds skip-assignment for a rejoining static leader. v0 has no
 * rebalance timeout: the session timeout serves as both, as in Kafka. The answer comes when the
 * join phase ends; the handler itself only touches memory.
 */
final class JoinGroupApi implements KafkaApi<JoinGroupRequestData, JoinGroupResponseData> {

    private static final short MEMBER_ID_REQUIRED_VERSION = 4;
    private static final short STATIC_MEMBERSHIP_VERSION = 5;
    private static final short NULLABLE_PROTOCOL_VERSION = 7;
    private static final short SKIP_ASSIGNMENT_VERSION = 9;

    private final GroupCoordinator groups;

    JoinGroupApi(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletionStage<JoinGroupResponseData> handle(RequestContext context, JoinGroupRequestData request) {
        short version = context.apiVersion();
        List<Protocol> protocols = request.protocols().stream()
                .map(protocol -> new Protocol(protocol.name(), protocol.metadata()))
                .toList();
        JoinRequest join = new JoinRequest(
                request.groupId(),
                request.memberId(),
                version >= STATIC_MEMBERSHIP_VERSION ? request.groupInstanceId() : null,
                context.clientId() == null ? "" : context.clientId(),
                clientHost(context.peer()),
                request.sessionTimeoutMs(),
                version == 0 ? request.sessionTimeoutMs() : request.rebalanceTimeoutMs(),
                request.protocolType(),
                protocols,
                version >= MEMBER_ID_REQUIRED_VERSION,
                version >= SKIP_ASSIGNMENT_VERSION,
                request.reason());
        return groups.join(join).thenApply(response -> toWire(response, version));
    }

    private static JoinGroupResponseData toWire(JoinResponse response, short version) {
        List<JoinGroupResponseMember> members = response.members().stream()
                .map(member -> new JoinGroupResponseMember()
                        .setMemberId(member.memberId())
                        .setGroupInstanceId(member.groupInstanceId())
                        .setMetadata(member.metadata()))
                .toList();
        String protocolName = response.protocolName();
        if (protocolName == null && version < NULLABLE_PROTOCOL_VERSION) {
            protocolName = "";
        }
        return new JoinGroupResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode(GroupErrorCodes.code(response.error()))
                .setGenerationId(response.generationId())
                .setProtocolType(response.protocolType())
                .setProtocolName(protocolName)
                .setLeader(response.leaderId() == null ? "" : response.leaderId())
                .setSkipAssignment(response.skipAssignment())
                .setMemberId(response.memberId())
                .setMembers(members);
    }

    /** As Kafka shows a member's host: the address with a leading slash. */
    static String clientHost(SocketAddress peer) {
        if (peer instanceof InetSocketAddress address && address.getAddress() != null) {
            return "/" + address.getAddress().getHostAddress();
        }
        return String.valueOf(peer);
    }

    @Override
    public Map<Errors, Integer> errorCounts(JoinGroupResponseData response) {
        return Map.of(Errors.forCode(response.errorCode()), 1);
    }
}
