package io.floe.kafka.api.group;

import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupDescription;
import io.floe.agent.group.GroupState;
import io.floe.agent.group.GroupType;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeGroups (v0-6): state, protocol and members; member metadata only while Stable, as Kafka.
 * An unknown group is "Dead" without error up to v5 and GROUP_ID_NOT_FOUND from v6; so is a
 * consumer-protocol group ("Group g is not a classic group.", as Kafka answers). Floe has no ACLs,
 * so a client asking for authorized operations (v3+) gets every group operation. Runs on the
 * blocking executor.
 */
final class DescribeGroupsApi implements KafkaApi<DescribeGroupsRequestData, DescribeGroupsResponseData> {

    private static final short AUTHORIZED_OPERATIONS_VERSION = 3;
    private static final short GROUP_ID_NOT_FOUND_VERSION = 6;
    private static final int GROUP_OPERATIONS =
            (1 << AclOperation.READ.code()) | (1 << AclOperation.DESCRIBE.code()) | (1 << AclOperation.DELETE.code());

    private final GroupCoordinator groups;

    DescribeGroupsApi(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletionStage<DescribeGroupsResponseData> handle(
            RequestContext context, DescribeGroupsRequestData request) {
        short version = context.apiVersion();
        boolean withOperations = version >= AUTHORIZED_OPERATIONS_VERSION && request.includeAuthorizedOperations();
        List<DescribedGroup> described = new ArrayList<>(request.groups().size());
        for (String groupId : request.groups()) {
            DescribedGroup group = describe(groupId, version);
            if (withOperations && group.errorCode() == Errors.NONE.code()) {
                group.setAuthorizedOperations(GROUP_OPERATIONS);
            }
            described.add(group);
        }
        return CompletableFuture.completedFuture(
                new DescribeGroupsResponseData().setThrottleTimeMs(0).setGroups(described));
    }

    private DescribedGroup describe(String groupId, short version) {
        if (groupId.isEmpty()) {
            return failed(groupId, Errors.INVALID_GROUP_ID, "The group id must not be empty.", version);
        }
        GroupDescription group;
        try {
            group = groups.describeGroup(groupId);
        } catch (RuntimeException e) {
            return failed(groupId, KafkaErrors.errorOf(e), e.getMessage(), version);
        }
        if (group.state() == GroupState.DEAD && version >= GROUP_ID_NOT_FOUND_VERSION) {
            boolean consumer = groups.typeOf(groupId)
                    .filter(type -> type == GroupType.CONSUMER)
                    .isPresent();
            return failed(
                    groupId,
                    Errors.GROUP_ID_NOT_FOUND,
                    consumer ? "Group " + groupId + " is not a classic group." : "Group " + groupId + " not found.",
                    version);
        }
        List<DescribedGroupMember> members = group.members().stream()
                .map(member -> new DescribedGroupMember()
                        .setMemberId(member.memberId())
                        .setGroupInstanceId(member.groupInstanceId())
                        .setClientId(member.clientId())
                        .setClientHost(member.clientHost())
                        .setMemberMetadata(member.metadata())
                        .setMemberAssignment(member.assignment()))
                .toList();
        return new DescribedGroup()
                .setGroupId(groupId)
                .setErrorCode(Errors.NONE.code())
                .setGroupState(group.state().label())
                .setProtocolType(group.protocolType())
                .setProtocolData(group.protocolName())
                .setMembers(members);
    }

    private static DescribedGroup failed(String groupId, Errors error, String message, short version) {
        DescribedGroup group = new DescribedGroup()
                .setGroupId(groupId)
                .setErrorCode(error.code())
                .setGroupState(GroupState.DEAD.label())
                .setProtocolType("")
                .setProtocolData("");
        return version >= GROUP_ID_NOT_FOUND_VERSION ? group.setErrorMessage(message) : group;
    }

    @Override
    public Map<Errors, Integer> errorCounts(DescribeGroupsResponseData response) {
        Map<Errors, Integer> counts = new HashMap<>();
        response.groups().forEach(g -> counts.merge(Errors.forCode(g.errorCode()), 1, Integer::sum));
        return counts;
    }
}
