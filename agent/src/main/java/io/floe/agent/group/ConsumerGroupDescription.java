package io.floe.agent.group;

import io.floe.agent.group.consumer.Assignment;
import io.floe.agent.group.consumer.ConsumerGroupState;
import java.util.List;
import java.util.Set;

/**
 * One consumer-protocol group as ConsumerGroupDescribe shows it.
 *
 * @param groupId the group
 * @param state its state
 * @param groupEpoch its group epoch
 * @param assignmentEpoch the epoch of its target assignment
 * @param assignor the assignor its members use
 * @param members its members, in join order
 */
public record ConsumerGroupDescription(
        String groupId,
        ConsumerGroupState state,
        int groupEpoch,
        int assignmentEpoch,
        String assignor,
        List<Member> members) {

    public ConsumerGroupDescription {
        members = List.copyOf(members);
    }

    /**
     * One member.
     *
     * @param memberId its member id
     * @param instanceId its instance id, or null
     * @param rackId its rack, or null
     * @param memberEpoch its epoch
     * @param clientId its client id
     * @param clientHost its address
     * @param subscribedTopicNames the topics it subscribes to by name
     * @param subscribedTopicRegex its subscription regex, or null
     * @param assignment the partitions it owns
     * @param targetAssignment the partitions it is heading for
     */
    public record Member(
            String memberId,
            String instanceId,
            String rackId,
            int memberEpoch,
            String clientId,
            String clientHost,
            Set<String> subscribedTopicNames,
            String subscribedTopicRegex,
            Assignment assignment,
            Assignment targetAssignment) {}
}
