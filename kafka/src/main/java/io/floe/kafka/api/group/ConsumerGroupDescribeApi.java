package io.floe.kafka.api.group;

import io.floe.agent.group.ConsumerGroupDescription;
import io.floe.agent.group.GroupCoordinator;
import io.floe.agent.group.GroupType;
import io.floe.agent.group.consumer.Assignment;
import io.floe.core.topic.Topic;
import io.floe.kafka.api.KafkaApi;
import io.floe.kafka.api.RequestContext;
import io.floe.kafka.error.KafkaErrors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.Member;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.TopicPartitions;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupDescribe (v0-1): consumer-protocol groups with their epochs, assignor and members'
 * subscriptions, assignments and target assignments (v1 adds the member type, always "consumer").
 * A classic group or an unknown id answers GROUP_ID_NOT_FOUND, as Kafka does, which makes the
 * AdminClient fall back to DescribeGroups. Topic names come from the agent's topics; a topic deleted
 * meanwhile is named by id only. Runs on the blocking executor.
 */
final class ConsumerGroupDescribeApi
        implements KafkaApi<ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData> {

    private static final byte CONSUMER_MEMBER_TYPE = 1;
    private static final int GROUP_OPERATIONS =
            (1 << AclOperation.READ.code()) | (1 << AclOperation.DESCRIBE.code()) | (1 << AclOperation.DELETE.code());

    private final GroupCoordinator groups;
    private final GroupTopics topics;

    ConsumerGroupDescribeApi(GroupCoordinator groups, GroupTopics topics) {
        this.groups = groups;
        this.topics = topics;
    }

    @Override
    public CompletionStage<ConsumerGroupDescribeResponseData> handle(
            RequestContext context, ConsumerGroupDescribeRequestData request) {
        List<DescribedGroup> described = new ArrayList<>();
        for (String groupId : request.groupIds()) {
            DescribedGroup group = describeQuietly(groupId);
            if (request.includeAuthorizedOperations() && group.errorCode() == Errors.NONE.code()) {
                group.setAuthorizedOperations(GROUP_OPERATIONS);
            }
            described.add(group);
        }
        return CompletableFuture.completedFuture(
                new ConsumerGroupDescribeResponseData().setThrottleTimeMs(0).setGroups(described));
    }

    private DescribedGroup describeQuietly(String groupId) {
        if (groupId.isEmpty()) {
            return failed(groupId, Errors.INVALID_GROUP_ID, "The group id must not be empty.");
        }
        try {
            Optional<ConsumerGroupDescription> group = groups.describeConsumerGroup(groupId);
            if (group.isPresent()) {
                return toWire(group.get());
            }
            String message = groups.typeOf(groupId)
                            .filter(type -> type == GroupType.CLASSIC)
                            .isPresent()
                    ? "Group " + groupId + " is not a consumer group."
                    : "Group " + groupId + " not found.";
            return failed(groupId, Errors.GROUP_ID_NOT_FOUND, message);
        } catch (RuntimeException e) {
            return failed(groupId, KafkaErrors.errorOf(e), e.getMessage());
        }
    }

    private DescribedGroup toWire(ConsumerGroupDescription group) {
        List<Member> members = new ArrayList<>();
        for (ConsumerGroupDescription.Member member : group.members()) {
            members.add(new Member()
                    .setMemberId(member.memberId())
                    .setInstanceId(member.instanceId())
                    .setRackId(member.rackId())
                    .setMemberEpoch(member.memberEpoch())
                    .setClientId(member.clientId())
                    .setClientHost(member.clientHost())
                    .setSubscribedTopicNames(new ArrayList<>(member.subscribedTopicNames()))
                    .setSubscribedTopicRegex(member.subscribedTopicRegex())
                    .setAssignment(assignment(member.assignment()))
                    .setTargetAssignment(assignment(member.targetAssignment()))
                    .setMemberType(CONSUMER_MEMBER_TYPE));
        }
        return new DescribedGroup()
                .setGroupId(group.groupId())
                .setErrorCode(Errors.NONE.code())
                .setGroupState(group.state().label())
                .setGroupEpoch(group.groupEpoch())
                .setAssignmentEpoch(group.assignmentEpoch())
                .setAssignorName(group.assignor())
                .setMembers(members);
    }

    private ConsumerGroupDescribeResponseData.Assignment assignment(Assignment assignment) {
        List<TopicPartitions> wire = new ArrayList<>();
        assignment
                .partitions()
                .forEach((id, partitions) -> wire.add(new TopicPartitions()
                        .setTopicId(GroupTopics.idOf(id))
                        .setTopicName(topics.byId(GroupTopics.idOf(id))
                                .map(Topic::name)
                                .orElse(""))
                        .setPartitions(new ArrayList<>(partitions))));
        return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(wire);
    }

    private static DescribedGroup failed(String groupId, Errors error, String message) {
        return new DescribedGroup()
                .setGroupId(groupId)
                .setErrorCode(error.code())
                .setErrorMessage(message)
                .setGroupState("");
    }

    @Override
    public Map<Errors, Integer> errorCounts(ConsumerGroupDescribeResponseData response) {
        Map<Errors, Integer> counts = new HashMap<>();
        response.groups().forEach(g -> counts.merge(Errors.forCode(g.errorCode()), 1, Integer::sum));
        return counts;
    }
}
